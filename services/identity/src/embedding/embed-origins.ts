import { EMBED_ORIGIN, identityLimits } from "@svc/platform/contract";

const { embedOriginsMax, embedOriginMaxLength } = identityLimits;

export type EmbedOriginsCheck = { origins: string[] } | { problems: string[] };

/**
 * The origins allowed to frame an organization's meetings, as an admin gave them, checked
 * (`EMBED_ORIGIN`, which the OpenAPI document states too) and normalized to what a browser reports
 * as an origin: lower case, without the default port or a trailing slash, each once, in the order
 * given. The result goes verbatim into the join page's `frame-ancestors`, and the page compares
 * its parent's origin with it. Every refused entry is named.
 */
export function checkEmbedOrigins(values: string[]): EmbedOriginsCheck {
  const problems: string[] = [];
  if (values.length > embedOriginsMax) problems.push(`allowedOrigins holds at most ${embedOriginsMax} origins`);
  const origins: string[] = [];
  for (const value of values) {
    const problem = originProblem(value);
    if (problem) problems.push(`allowedOrigins: ${quoted(value)} ${problem}`);
    else {
      const origin = normalized(value.trim());
      if (!origins.includes(origin)) origins.push(origin);
    }
  }
  return problems.length > 0 ? { problems } : { origins };
}

/** Why the value is refused, as precisely as can be told (the rule itself is EMBED_ORIGIN). */
function originProblem(value: string): string | undefined {
  // Counted as sent, like every length the API states.
  if (value.length > embedOriginMaxLength) return `must be at most ${embedOriginMaxLength} characters`;
  const trimmed = value.trim();
  if (EMBED_ORIGIN.test(trimmed)) return undefined;
  if (trimmed === "") return "is empty";
  const url = URL.parse(trimmed);
  if (url && (url.protocol === "https:" || url.protocol === "http:")) {
    if (url.pathname !== "/" || url.search || url.hash || /[?#]/.test(trimmed))
      return "must be an origin only (scheme, host and port): no path, query or fragment";
    if (url.username || url.password) return "must not contain credentials";
    if (url.protocol === "http:" && /^http:\/\/[A-Za-z0-9.-]+(?::\d+)?\/?$/.test(trimmed) && !/^[\d.]+$/.test(url.hostname)) {
      return "must be https (plain http only for localhost or 127.0.0.1)";
    }
  }
  return "must be an origin such as https://app.example.com: https, a host name (an internationalised one in its punycode form, xn--…) and an optional port; no wildcard, and no IP address but http://127.0.0.1";
}

/** Lower case (scheme and host are case-insensitive), no trailing slash, no default port. */
function normalized(origin: string): string {
  const lower = origin.toLowerCase().replace(/\/$/, "");
  return lower.replace(/^(https:\/\/[^:]+):443$/, "$1").replace(/^(http:\/\/[^:]+):80$/, "$1");
}

/** The value as typed, shortened: enough to find it in the list, never a wall of text in a message. */
const quoted = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
