import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { holdStill } from "../support/hold-still.ts";
import { within } from "../support/wait.ts";

// A stopping service must exit within its bound whatever its output does: the reader of its stdout
// may be gone (a supervisor or log shim that exited), and a second signal must end it at once.
// Before the synchronous log destination, the exit-time flush of pino's asynchronous one retried
// EPIPE forever inside process.exit(), and the process ignored every later signal.
const fixture = path.join(import.meta.dirname, "fixtures/stopping-service.ts");
const GRACE_MS = 3_000;

function startFixture(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--conditions=source", fixture], {
    env: { ...process.env, SHUTDOWN_GRACE_MS: String(GRACE_MS), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Anything on stderr would be Node's report of an uncaught error (a crash exits with 1 as well).
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      // Only the last few bytes are kept across chunks: enough for a line split between two.
      seen = seen.slice(-100) + chunk.toString();
      if (seen.includes('"msg":"ready"')) {
        child.stdout!.off("data", onData);
        // Keep reading (slowly enough that the pipe stays full) until the test closes it.
        child.stdout!.on("data", () => undefined);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the fixture exited (${code}) before it was ready`)));
  });
  return { child, ready, stderr: () => stderr };
}

/** Resolves with the exit code and how long after `since` it came, or "still running" after `ms`. */
async function exitWithin(child: ChildProcess, since: number, ms: number) {
  const exited = new Promise<{ code: number | null; afterMs: number }>((resolve) =>
    child.once("exit", (code) => resolve({ code, afterMs: Date.now() - since })),
  );
  const outcome = await within(exited, ms);
  return outcome === "pending" ? ("still running" as const) : outcome;
}

describe("a stopping service", () => {
  it("exits within its bound when the reader of its output goes away as it stops", { timeout: 30_000 }, async () => {
    for (let run = 0; run < 3; run++) {
      const { child, ready, stderr } = startFixture();
      await ready;
      const since = Date.now();
      child.kill("SIGTERM");
      await holdStill(100, "the reader goes away while the service drains, before its last burst of lines");
      child.stdout!.destroy();
      const exit = await exitWithin(child, since, GRACE_MS + 2_000);
      if (exit === "still running") child.kill("SIGKILL");
      expect(exit).not.toBe("still running");
      expect((exit as { code: number }).code).toBe(0);
      expect(stderr()).toBe("");
    }
  });

  it("exits at the end of its grace period when a closer never finishes, reader gone or not", { timeout: 30_000 }, async () => {
    const { child, ready, stderr } = startFixture({ STOP_HANG: "1" });
    await ready;
    const since = Date.now();
    child.kill("SIGTERM");
    child.stdout!.destroy();
    const exit = await exitWithin(child, since, GRACE_MS + 2_000);
    if (exit === "still running") child.kill("SIGKILL");
    expect(exit).toMatchObject({ code: 1 });
    expect((exit as { afterMs: number }).afterMs).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(stderr()).toBe("");
  });

  it("exits at once on a second signal, while its drain is still running", { timeout: 30_000 }, async () => {
    const { child, ready, stderr } = startFixture({ STOP_HANG: "1", SHUTDOWN_GRACE_MS: "60000" });
    await ready;
    child.kill("SIGTERM");
    await holdStill(300, "the second signal must arrive while the drain (which never finishes here) is running");
    const since = Date.now();
    child.stdout!.destroy();
    child.kill("SIGINT");
    const exit = await exitWithin(child, since, 2_000);
    if (exit === "still running") child.kill("SIGKILL");
    expect(exit).toMatchObject({ code: 1 });
    expect(stderr()).toBe("");
  });
});
