import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { TRANSCRIBER_ENTRY, transcriberPython, transcriberUnavailable } from "../../scripts/transcriber-worker.ts";
import { useServiceDatabase } from "../support/service-database.ts";
import { waitFor } from "../support/wait.ts";

// `npm start` runs the transcription worker when its Python environment exists and otherwise says
// how to get it (scripts/start-embedded.ts, scripts/transcriber-worker.ts), as it does for Egress;
// the worker it starts stops when npm start's supervisor is gone, as the services do.
const root = path.resolve(import.meta.dirname, "../..");
const database = useServiceDatabase("meeting", createLogger("start-transcriber-test", "silent"));
const emptyCache = mkdtempSync(path.join(os.tmpdir(), "svc-no-transcriber-"));
afterAll(() => rmSync(emptyCache, { recursive: true, force: true }));

describe("npm start and the transcription worker", () => {
  it("says how to get the worker when its environment is not made", () => {
    expect(transcriberUnavailable({ ...process.env, SVC_CACHE: emptyCache })).toMatch(/transcription is unavailable.*`scripts\/transcriber deps`/);
  });

  it("runs the worker when its environment exists, one job at a time by default, and the worker stops when its supervisor is gone", async () => {
    // CI makes the environment first (scripts/transcriber deps).
    expect(transcriberUnavailable()).toBeUndefined();
    // As start-embedded.ts's spawnProcess starts it: in the meeting context's folder, with an IPC channel.
    const worker = spawn(process.execPath, ["--conditions=source", TRANSCRIBER_ENTRY], {
      cwd: path.join(root, "services/meeting"),
      env: { ...process.env, DATABASE_URL: database.url, TRANSCRIBER_PYTHON: transcriberPython(), LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    let output = "";
    worker.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    worker.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => worker.once("exit", (code) => resolve(code)));
    try {
      await waitFor(() => output.includes('"msg":"transcription worker started"'), 60_000, `the worker did not start:\n${output}`);
      expect(output).toContain('"concurrency":1');
      // The supervisor's end of the channel closes (npm start is gone, however it went).
      worker.disconnect();
      expect(await exited).toBe(0);
    } finally {
      if (worker.exitCode === null && worker.signalCode === null) worker.kill("SIGKILL");
    }
  });
});
