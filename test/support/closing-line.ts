import { existsSync, readFileSync, writeFileSync } from "node:fs";

// The one closing-line format of the test command ("npm test"): "<runner>: N passed, N failed,
// N skipped", alone on a line, the plain form CI reads in any language to know what a run tested.
export interface RunCounts {
  passed: number;
  failed: number;
  skipped: number;
}

export function closingLine(runner: string, counts: RunCounts): string {
  return `${runner}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
}

/** The counts of a JUnit XML report's root element (schemathesis writes one testcase per operation). */
export function junitCounts(xml: string): RunCounts {
  const root = /<testsuites\b([^>]*)>/.exec(xml) ?? /<testsuite\b([^>]*)>/.exec(xml);
  if (!root) throw new Error("not a JUnit report: no <testsuites> or <testsuite> element");
  const attribute = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(root[1]!)?.[1] ?? 0);
  const failed = attribute("failures") + attribute("errors");
  const skipped = attribute("skipped");
  return { passed: attribute("tests") - failed - skipped, failed, skipped };
}

/**
 * `counts` plus those recorded in `file` by earlier runs; the sum is recorded there. A missing or
 * empty file (what `mktemp` creates) records no earlier run.
 */
export function withEarlierRuns(counts: RunCounts, file: string | undefined): RunCounts {
  if (!file) return counts;
  const recorded = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  const earlier: RunCounts = recorded ? (JSON.parse(recorded) as RunCounts) : { passed: 0, failed: 0, skipped: 0 };
  const total = { passed: earlier.passed + counts.passed, failed: earlier.failed + counts.failed, skipped: earlier.skipped + counts.skipped };
  writeFileSync(file, JSON.stringify(total));
  return total;
}
