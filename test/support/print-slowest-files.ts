// Prints the slowest test files that the job's vitest runs recorded in the file given (or in
// SVC_TEST_TIMES_FILE): the table at the end of .ci/run's log (slowest-files-reporter.ts).
import { readTimes, slowestTable } from "./slowest-files.ts";

const file = process.argv[2] ?? process.env.SVC_TEST_TIMES_FILE;
if (!file) throw new Error("usage: print-slowest-files.ts <times file>");
console.log(slowestTable(readTimes(file)));
