// Runs the schemathesis CLI (scripts/schemathesis) with its output passed on line by line, minus
// the one shape CI must not see.
//
// CI reads the closing summaries of known test runners anywhere in a log, pytest's among them: a
// line of `=` around "N passed, N failed, N warnings ... in N s". Schemathesis closes its run with
// a line of exactly that shape ("==== 3 warnings in 225.37s ===="), which CI read as a pytest run
// that passed nothing, whatever vitest said after it. The information stays, in a line of ours.
import { spawn, type SpawnOptions } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

const root = path.resolve(import.meta.dirname, "../..");

/** pytest's closing summary, as CI matches it (`^=+ .* in [0-9.]+s =+$`), spaces around it allowed. */
export const PYTEST_SUMMARY = /^\s*=+ (.*) in ([0-9.]+)s =+\s*$/;

/** A line as the wrapper prints it: a pytest-shaped summary becomes "schemathesis summary: … in N s". */
export function outputLine(line: string): string {
  const summary = PYTEST_SUMMARY.exec(line);
  if (!summary) return line;
  return `schemathesis summary: ${summary[1]} in ${Math.round(Number(summary[2]))} s`;
}

function passLines(from: Readable, to: Writable): Promise<void> {
  const lines = createInterface({ input: from, crlfDelay: Infinity });
  lines.on("line", (line) => to.write(`${outputLine(line)}\n`));
  return new Promise((resolve) => lines.once("close", resolve));
}

export interface SchemathesisOutput {
  stdout: Writable;
  stderr: Writable;
}

/**
 * Runs schemathesis with `args`; resolves to its exit code once its whole output has been passed on.
 * `options.signal` aborted stops it with SIGTERM (scripts/schemathesis execs it, so the signal
 * reaches schemathesis itself), and the caller goes on to stop its stack.
 */
export async function runSchemathesis(
  args: string[],
  options: Pick<SpawnOptions, "cwd" | "env" | "signal">,
  output: SchemathesisOutput = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const child = spawn(path.join(root, "scripts/schemathesis"), args, { ...options, killSignal: "SIGTERM", stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number>((resolve, reject) => {
    // An abort is reported as an error too; the exit that follows says how it ended.
    child.once("error", (error) => {
      if (error.name !== "AbortError") reject(error);
    });
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
  const [code] = await Promise.all([exited, passLines(child.stdout!, output.stdout), passLines(child.stderr!, output.stderr)]);
  return code;
}
