import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { closingLine, junitCounts, withEarlierRuns } from "../support/closing-line.ts";

// CI reads the test command's closing line ("N passed, N failed" alone on a line, one word and a
// colon before it) to tell a run that tested something from one that tested nothing.
describe("the test command's closing line", () => {
  it("is one word with a colon, then the counts in the plain form", () => {
    const line = closingLine("vitest", { passed: 978, failed: 0, skipped: 2 });
    expect(line).toBe("vitest: 978 passed, 0 failed, 2 skipped");
    expect(line).toMatch(/^\w+: \d+ passed, \d+ failed(, \d+ skipped)?$/);
  });

  it("counts a schemathesis JUnit report from its root element: errors fail too", () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?>
<testsuites errors="1" failures="2" skipped="3" tests="39" time="100.2">
  <testsuite name="schemathesis" errors="1" failures="2" skipped="3" tests="39" time="100.2">
    <testcase name="POST /auth" time="0.3" />
  </testsuite>
</testsuites>`;
    expect(junitCounts(xml)).toEqual({ passed: 33, failed: 3, skipped: 3 });
  });

  it("refuses what is not a JUnit report rather than counting nothing as success", () => {
    expect(() => junitCounts("<html></html>")).toThrow(/not a JUnit report/);
  });

  it("adds up the runs of one CI job when SVC_TEST_TOTALS_FILE names a file, so its last line counts them all", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "closing-line-"));
    try {
      const file = path.join(dir, "totals.json");
      expect(withEarlierRuns({ passed: 3, failed: 0, skipped: 1 }, undefined)).toEqual({ passed: 3, failed: 0, skipped: 1 });
      expect(withEarlierRuns({ passed: 1100, failed: 1, skipped: 0 }, file)).toEqual({ passed: 1100, failed: 1, skipped: 0 });
      expect(withEarlierRuns({ passed: 9, failed: 0, skipped: 2 }, file)).toEqual({ passed: 1109, failed: 1, skipped: 2 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads an empty totals file, as .ci/run's mktemp creates it, as no earlier run", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "closing-line-"));
    try {
      const file = path.join(dir, "totals.json");
      writeFileSync(file, "");
      expect(withEarlierRuns({ passed: 1166, failed: 0, skipped: 0 }, file)).toEqual({ passed: 1166, failed: 0, skipped: 0 });
      expect(withEarlierRuns({ passed: 4, failed: 0, skipped: 0 }, file)).toEqual({ passed: 1170, failed: 0, skipped: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
