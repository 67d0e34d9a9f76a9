import { appendFileSync, existsSync, readFileSync } from "node:fs";

// The slowest test files of a run, as a table: where CI's time goes, file by file
// (docs/testing.md keeps the same table with its date and the machine's load).

export interface FileTime {
  /** Wall-clock seconds from the file's start (setup, import, collection) to its last hook. */
  seconds: number;
  project: string;
  file: string;
}

const line = (time: FileTime) => `${time.seconds.toFixed(1).padStart(7)} s  ${time.project.padEnd(18)} ${time.file}`;

export function slowestTable(times: readonly FileTime[], count = 15): string {
  const slowest = [...times].sort((a, b) => b.seconds - a.seconds).slice(0, count);
  return [`the ${slowest.length} slowest test files:`, ...slowest.map(line)].join("\n");
}

/** Appends a run's times to `file` (tab-separated), for a table over several runs (.ci/run's). */
export function recordTimes(file: string, times: readonly FileTime[]): void {
  appendFileSync(file, times.map((time) => `${time.seconds}\t${time.project}\t${time.file}\n`).join(""));
}

export function readTimes(file: string): FileTime[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((row) => {
      const [seconds, project, file] = row.split("\t") as [string, string, string];
      return { seconds: Number(seconds), project, file };
    });
}
