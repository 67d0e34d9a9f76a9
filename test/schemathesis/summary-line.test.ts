import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outputLine, runSchemathesis } from "./schemathesis-process.ts";
import { holdStill } from "../support/hold-still.ts";

// What CI takes for pytest's closing summary, anywhere in the log (issue: a fuzz run's
// "=== 3 warnings in 225.37s ===" read as "pytest ran and passed nothing").
const CI_PYTEST_SUMMARY = /^=+ .* in [0-9.]+s =+$/;

function collector() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, lines: () => chunks.join("").split("\n") };
}

describe("the fuzz wrapper's output", () => {
  it("turns a pytest-shaped summary into a line of its own, keeping what it says", () => {
    const line = outputLine("============================ 3 warnings in 225.37s =============================");
    expect(line).toBe("schemathesis summary: 3 warnings in 225 s");
    expect(line).not.toMatch(CI_PYTEST_SUMMARY);
    expect(outputLine("=== 39 passed, 1 failed in 2.10s ===")).toBe("schemathesis summary: 39 passed, 1 failed in 2 s");
    expect(outputLine("POST /api/v1/meeting .... 50 passed")).toBe("POST /api/v1/meeting .... 50 passed");
  });

  describe("of a real schemathesis run", () => {
    let server: http.Server;
    let url: string;
    beforeAll(async () => {
      const document = {
        openapi: "3.0.3",
        info: { title: "tiny", version: "1" },
        paths: { "/ping": { get: { responses: { "200": { description: "pong", content: { "application/json": { schema: { type: "object" } } } } } } } },
      };
      server = http.createServer((request, response) => {
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify(request.url === "/openapi.json" ? document : {}));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("has no line CI reads as pytest's summary, and says how the run ended in its own words", { timeout: 300_000 }, async () => {
      const stdout = collector();
      const stderr = collector();
      const code = await runSchemathesis(
        ["run", `${url}/openapi.json`, "--phases", "examples,fuzzing", "--max-examples", "5", "--no-color"],
        { cwd: os.tmpdir(), env: process.env },
        { stdout: stdout.stream, stderr: stderr.stream },
      );
      const lines = [...stdout.lines(), ...stderr.lines()];
      expect(code, lines.join("\n")).toBe(0);
      expect(lines.filter((line) => CI_PYTEST_SUMMARY.test(line))).toEqual([]);
      expect(lines.filter((line) => line.startsWith("schemathesis summary: "))).toEqual([expect.stringMatching(/^schemathesis summary: .+ in \d+ s$/)]);
    });

    it("stops schemathesis at once when its signal is aborted (run.ts aborts it on SIGTERM and SIGINT)", { timeout: 120_000 }, async () => {
      // A schema that never answers: schemathesis would wait the whole minute for it.
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
      const silentUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/openapi.json`;
      closed.close();
      const stopped = new AbortController();
      const stdout = collector();
      const run = runSchemathesis(
        ["run", silentUrl, "--wait-for-schema", "60", "--no-color"],
        { cwd: os.tmpdir(), env: process.env, signal: stopped.signal },
        {
          stdout: stdout.stream,
          stderr: collector().stream,
        },
      );
      await holdStill(5_000, "schemathesis starts (Python imports take seconds) and enters its wait for the schema, where the abort must reach it");
      const abortedAt = Date.now();
      stopped.abort();
      const code = await run;
      expect(Date.now() - abortedAt).toBeLessThan(10_000);
      expect(code).not.toBe(0);
    });
  });
});
