import type { ChildProcess } from "node:child_process";
import { holdStill } from "./hold-still.ts";

export interface ReadinessOptions {
  /** Named in the error. */
  name: string;
  timeoutMs?: number;
  intervalMs?: number;
  /** What the process printed so far, appended to the error. */
  output?: () => string;
}

/**
 * Waits until a process a test spawned is ready (`ready` answers true: a port accepts, a health
 * check passes). Fails at once, with its output, when the process exits first, and after
 * `timeoutMs` otherwise: a dead process is never waited for until the timeout.
 */
export async function waitUntilReady(child: ChildProcess, ready: () => Promise<boolean>, options: ReadinessOptions): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const output = () => (options.output ? `:\n${options.output()}` : "");
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${options.name} exited (${child.exitCode ?? child.signalCode}) before it was ready${output()}`);
    if (await ready()) return;
    if (Date.now() > deadline) throw new Error(`${options.name} was not ready within ${options.timeoutMs ?? 60_000} ms${output()}`);
    await holdStill(options.intervalMs ?? 200, "between readiness probes");
  }
}
