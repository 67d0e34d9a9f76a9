// After a vitest run: each project's wall-clock span, and the 15 slowest test files with their
// times (slowest-files.ts). In CI (.ci/run sets SVC_STEPS_FILE and SVC_TEST_TIMES_FILE) both are
// recorded instead, and .ci/run prints one table of each for the whole job at the end of its log.
import { appendFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import { recordTimes, slowestTable, type FileTime } from "./slowest-files.ts";

export default class SlowestFilesReporter implements Reporter {
  /** Per project, when its first file started and its last ended (ms since the epoch). */
  private readonly spans = new Map<string, { start: number; end: number; files: number }>();

  onTestModuleQueued(testModule: TestModule): void {
    const name = testModule.project.name;
    if (!this.spans.has(name)) this.spans.set(name, { start: Date.now(), end: Date.now(), files: 0 });
  }

  onTestModuleEnd(testModule: TestModule): void {
    const span = this.spans.get(testModule.project.name);
    if (!span) return;
    span.end = Date.now();
    span.files++;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const times: FileTime[] = testModules.map((testModule) => {
      const diagnostic = testModule.diagnostic();
      const ms = diagnostic.environmentSetupDuration + diagnostic.prepareDuration + diagnostic.collectDuration + diagnostic.setupDuration + diagnostic.duration;
      return { seconds: ms / 1000, project: testModule.project.name, file: path.relative(process.cwd(), testModule.moduleId) };
    });
    const spans = [...this.spans].map(([name, span]) => ({
      name: `vitest ${name} (${span.files} files)`,
      seconds: Math.round((span.end - span.start) / 1000),
    }));
    const stepsFile = process.env.SVC_STEPS_FILE;
    const timesFile = process.env.SVC_TEST_TIMES_FILE;
    if (stepsFile) appendFileSync(stepsFile, spans.map((span) => `  ${span.name}\t${span.seconds}\t0\n`).join(""));
    else process.stdout.write(`\n${spans.map((span) => `${span.name}: ${span.seconds} s`).join("\n")}\n`);
    if (timesFile) recordTimes(timesFile, times);
    else process.stdout.write(`\n${slowestTable(times)}\n`);
  }
}
