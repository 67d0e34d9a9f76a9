import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import http2 from "node:http2";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAddresses } from "@svc/platform";
import { embeddedStopBoundMs } from "../../scripts/supervision.ts";
import { launchChromium } from "../support/chromium.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { isListening, processTree, stillRunning, watchProcessTree, type ProcessId } from "../support/process-tree.ts";
import { waitFor, waitUntil } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

// `npm start` stopped the way a CI runner or a terminal stops it: SIGTERM to its whole process
// group, the reader of its output exiting right after, while requests, HTTP/2 sessions, webhook
// deliveries and a person in a room are all in flight. Nothing of it may be left, every port must
// be free, and the next start must work. (Before: a service could hang forever in process.exit()
// on its broken stdout, or Postgres stopped under the draining services, and the next start failed
// with EADDRINUSE.) SVC_START_STOP_CYCLES sets the number of cycles (the acceptance: 20).
const root = path.resolve(import.meta.dirname, "../..");
const CYCLES = Number(process.env.SVC_START_STOP_CYCLES ?? 2);
const PORTS = [...Object.values(defaultAddresses), 7880, 7881, 54329];
/** Every bound of npm start's stop in turn (scripts/supervision.ts), and a few seconds to see the last exit. */
const STOPPED_WITHIN_MS = embeddedStopBoundMs(process.env) + 5_000;

const gateway = `http://127.0.0.1:${defaultAddresses.gateway}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-npm-start-"));

interface Started {
  npm: ChildProcess;
  stdout: string;
  /** Every process seen in npm's tree while it ran. */
  seen: Map<number, ProcessId>;
  exited: Promise<number | null>;
}

/** `npm start` in a process group of its own (as a terminal or CI job runs it), output piped to us. */
function startPlatform(env: Record<string, string> = {}): Started & { ready: Promise<void> } {
  // The embedded default: no DATABASE_URL, REDIS_URL or KAFKA_BROKERS from the test's environment.
  const { DATABASE_URL: _database, REDIS_URL: _redis, KAFKA_BROKERS: _kafka, ...inherited } = process.env;
  const npm = spawn("npm", ["start"], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // Subscribers on loopback over http (the receiver below); the load below is one credential far
    // faster than the per-credential limit allows.
    env: {
      ...inherited,
      SVC_DATA_DIR: dataDir,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_ALLOW_INSECURE: "true",
      RATE_LIMIT_PER_SECOND: "100000",
      ...env,
    },
  });
  const started: Started = { npm, stdout: "", seen: new Map(), exited: new Promise((resolve) => npm.once("exit", (code) => resolve(code))) };
  watchProcessTree(npm.pid!, started.seen, started.exited);
  npm.stdout!.on("data", (chunk: Buffer) => (started.stdout += chunk.toString()));
  let stderr = "";
  const ready = new Promise<void>((resolve, reject) => {
    npm.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes("svc: ready:")) resolve();
    });
    // The services log to stdout (JSON lines): a service that failed to start says why there.
    void started.exited.then((code) =>
      reject(
        new Error(`npm start exited (${code}) before it was ready:\n${stderr.slice(-4000)}\nIts standard output ended with:\n${started.stdout.slice(-4000)}`),
      ),
    );
  });
  return Object.assign(started, { ready });
}

/** SIGTERM to npm's group, and our end of its output closed at once, as a reader that exits. */
function stopPlatform(started: Started) {
  for (const process of processTree(started.npm.pid!)) started.seen.set(process.pid, process);
  try {
    process.kill(-started.npm.pid!, "SIGTERM");
  } catch {
    // The group is gone already.
  }
  started.npm.stdout!.destroy();
  started.npm.stderr!.destroy();
}

async function expectNothingLeft(started: Started, ports = PORTS) {
  await waitUntil(() => stillRunning([...started.seen.values()]).length === 0, STOPPED_WITHIN_MS, 250);
  const left = stillRunning([...started.seen.values()]);
  // Whatever is left is killed, so that the next test starts clean; the assertion still fails.
  for (const { pid } of left) process.kill(pid, "SIGKILL");
  expect(left.map(({ pid, command }) => `${pid} ${command}`)).toEqual([]);
  const listening = [];
  for (const port of ports) if (await isListening(port)) listening.push(port);
  expect(listening).toEqual([]);
}

/** A steady stream of keep-alive requests through the gateway until `stop` is aborted. */
function keepRequesting(apiKey: string, stop: AbortSignal) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const one = () =>
    new Promise<void>((resolve) => {
      const request = http.request(`${gateway}/api/v1/auth`, { method: "POST", agent, headers: { authorization: `Bearer ${apiKey}` } }, (response) => {
        response.resume();
        response.once("end", resolve);
        response.once("error", () => resolve());
      });
      request.once("error", () => resolve());
      request.end();
    });
  const loops = Array.from({ length: 8 }, async () => {
    while (!stop.aborted) await one();
  });
  return Promise.all(loops).finally(() => agent.destroy());
}

async function api(apiKey: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${gateway}/api/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json().catch(() => undefined)) as Record<string, string> };
}

describe("npm start, stopped through its process group while busy", () => {
  let browser: Browser;
  let receiver: WebhookReceiver;
  let apiKey: string | undefined;
  beforeAll(async () => {
    for (const port of PORTS) expect(await isListening(port), `port ${port} is taken before the test`).toBe(false);
    browser = await launchChromium({ fakeMedia: true });
    receiver = await startWebhookReceiver();
    // Slow answers keep deliveries in flight when the stop comes.
    receiver.answer("/slow", () => ({ status: 204, delayMs: 3_000 }));
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`leaves no process and no listening port behind, ${CYCLES} times in a row`, { timeout: CYCLES * 240_000 }, async () => {
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const started = startPlatform();
      try {
        await busyCycle(started, cycle);
      } finally {
        if (started.npm.exitCode === null) stopPlatform(started);
        await expectNothingLeft(started);
      }
    }
  });

  async function busyCycle(started: ReturnType<typeof startPlatform>, cycle: number) {
    await started.ready;
    // The first start creates the demo tenant and shows its API key once (on stdout, which may
    // arrive after the readiness line on stderr).
    await waitFor(() => (apiKey ??= /^\s*API key\s+(\S+)$/m.exec(started.stdout)?.[1]) !== undefined, 10_000, `no API key in:\n${started.stdout}`);
    if (cycle === 1) {
      const subscribed = await api(apiKey!, "POST", "/webhook", { url: `${receiver.baseUrl}/slow`, events: ["meeting.updated"] });
      expect(subscribed.status).toBe(201);
      receiver.useSecret("/slow", subscribed.body.secret!);
    }

    const stopLoad = new AbortController();
    const load = keepRequesting(apiKey!, stopLoad.signal);
    // Idle HTTP/2 sessions to every service's gRPC port, as the gateway and other callers keep.
    const sessions = [defaultAddresses.identity, defaultAddresses.meeting, defaultAddresses.webhook].map((port) => {
      const session = http2.connect(`http://127.0.0.1:${port}`);
      session.on("error", () => undefined);
      return session;
    });
    const meeting = await api(apiKey!, "POST", "/meeting", { title: `cycle ${cycle}` });
    expect(meeting.status).toBe(200);
    const person = await joinMeeting(browser, meeting.body.url!, "Ada");
    const delivered = receiver.on("/slow").length;
    for (let change = 0; change < 5; change++)
      expect((await api(apiKey!, "PATCH", `/meeting/${meeting.body.id}`, { title: `cycle ${cycle}.${change}` })).status).toBe(200);
    // Deliveries are in flight when the stop comes: the receiver has them and holds each for 3 s.
    await waitFor(() => receiver.on("/slow").length > delivered, 15_000, "no delivery reached the receiver");

    stopPlatform(started);
    await expectNothingLeft(started);
    stopLoad.abort();
    await load;
    for (const session of sessions) session.destroy();
    await person.context().close();
  }

  it("leaves nothing behind when a service cannot start because its port is taken", { timeout: 120_000 }, async () => {
    const squatter = net.createServer().listen(defaultAddresses.meeting, "127.0.0.1");
    await new Promise((resolve) => squatter.once("listening", resolve));
    try {
      const started = startPlatform();
      await expect(started.ready).rejects.toThrow(/exited \(1\)/);
      await expectNothingLeft(
        started,
        PORTS.filter((port) => port !== defaultAddresses.meeting),
      );
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
