// Ends a vitest run with one plain line, "vitest: N passed, N failed, N skipped", after the default
// reporter's summary. CI reads a run's closing line to tell a run that tested something from one
// that tested nothing, and it knows that plain form in any language, not vitest's own summary.
//
// SVC_TEST_TOTALS_FILE: when set, the counts recorded there by earlier runs are added to this
// run's, and the sum is recorded. CI (.ci/run) runs `npm test` and then `npm run test:cluster`;
// the last line of its log then counts every test of the whole run, not only the cluster's.
import type { Reporter, TestModule } from "vitest/node";
import type { SerializedError } from "vitest";
import { closingLine, withEarlierRuns } from "./closing-line.ts";

export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const testModule of testModules) {
      let failedInModule = 0;
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failedInModule++;
        else skipped++;
      }
      // A file that fails outside any test (an import error, a failing beforeAll) fails once.
      failed += failedInModule === 0 && testModule.state() === "failed" ? 1 : failedInModule;
    }
    process.stdout.write(`${closingLine("vitest", withEarlierRuns({ passed, failed, skipped }, process.env.SVC_TEST_TOTALS_FILE))}\n`);
  }
}
