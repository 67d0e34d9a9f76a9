// Reading PromQL expressions (the dashboard's queries, the alert rules) for the metric names they use.

/**
 * The metric names in a PromQL expression: the identifiers left once strings, label matchers,
 * range selectors and grouping clauses are removed, apart from functions (followed by a
 * parenthesis) and operators.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, " ")
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ");
  const names = [...stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)]
    .filter((match) => !/^\s*\(/.test(stripped.slice(match.index + match[0].length)))
    .map((match) => match[0])
    .filter((token) => !/^(and|or|unless|bool|offset)$/.test(token));
  return [...new Set(names)];
}
