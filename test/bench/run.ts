// `npm run bench`: the platform in full mode (real Postgres, Redis, Kafka from scripts/infra),
// measured side by side with its own ceilings in one run, because absolute numbers on a shared
// machine drift while ratios hold. Prints one table and writes test/bench/results.json.
// `--quick` runs every throughput scenario briefly (under a minute, no meeting-room browser runs);
// BENCH_PROFILE_DIR=<dir> writes a CPU profile of every service process there and summarises it.
// `--only=calls,auth,meeting,join,list,pipeline,backlog,growth,rooms,recording,recording-start,transcription,media,memory` runs just those sections (what
// each endpoint calls, counted from its trace: call-counts.ts; POST /auth with its ceilings,
// GET /webhook with its ceilings, the webhook pipeline end to end, a queued webhook backlog, how
// cost grows with data, a meeting room filling up, what a recording costs: recording-cost.ts, on
// a stack with LiveKit Egress; what transcription costs: transcription-cost.ts; neither in --quick;
// what a meeting room costs the media server: media-cost.ts, only with --only=media, as it takes minutes;
// memory: each service's RSS around the other sections, as the full run's memory rows).
// BENCH_RESULTS_FILE=<file> writes the run's record there (an --only run writes none without it).
// BENCH_PRODUCTION_TREE=<dir> runs the compiled build from `scripts/build-production <dir>`.
// BENCH_GATEWAY_TRANSPORT=connect has the gateway call meeting and webhook with Connect, as before
// decision 0018 (a same-machine before/after of the grpc-js hop).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "../support/infra.ts";
import { serviceNames, startStack, type Stack } from "../support/stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { keepAliveClient, load, loop, percentiles, type LoadOptions, type LoadResult } from "./load.ts";
import { JOIN_CONCURRENCY, joinGrantLatency } from "./meeting-room.ts";
import { joinPhaseRows, measureJoinPhases } from "./join-phases.ts";
import { measureRecordingCost } from "./recording-cost.ts";
import { measureRecordingStart } from "./recording-start.ts";
import { measureTranscriptionCost } from "./transcription-cost.ts";
import { measureMediaCost } from "./media-cost.ts";
import { formatMediaCostTable } from "./cost-tables.ts";
import { countCalls, formatCallCounts, type CallCount } from "./call-counts.ts";
import { cpuMeter, withCpuPerRequest } from "./process-cpu.ts";
import { dispatcherBacklog } from "./dispatcher-backlog.ts";
import { growth, roomPresence } from "./growth.ts";
import type { Row } from "./row.ts";
import { topFrames, topLocations } from "./profile-summary.ts";
import { authorizeChains, REFRESH_CHAINS, refreshGrants } from "./refresh-grants.ts";

const QUICK = process.argv.includes("--quick");
const DURATION = Number(process.env.BENCH_DURATION_SECONDS ?? (QUICK ? 3 : 8));
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? (QUICK ? 1 : 2));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const PIPELINE_MEETINGS = Number(process.env.BENCH_PIPELINE_MEETINGS ?? (QUICK ? 300 : 1000));
const BACKLOG_DELIVERIES = Number(process.env.BENCH_BACKLOG_DELIVERIES ?? (QUICK ? 2_000 : 10_000));
/** Stored meetings and deliveries at the largest growth step; the smallest is a hundredth of it. */
const GROWTH_MAX_ROWS = Number(process.env.BENCH_GROWTH_MAX_ROWS ?? (QUICK ? 10_000 : 1_000_000));
/** `--only=auth,meeting,join,list,pipeline,backlog,growth,rooms,recording,transcription,media,memory`: just those sections (and no results.json unless BENCH_RESULTS_FILE names one), to measure one change without the whole run. */
const ONLY = process.argv
  .find((arg) => arg.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");
/** How long after the load the memory rows read RSS again: two of the processes' idle samples. */
const MEMORY_SETTLE_SECONDS = 25;
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR ? path.resolve(process.env.BENCH_PROFILE_DIR) : undefined;
/** A tree built by `scripts/build-production`: the stack runs its compiled JavaScript, as the image does. */
/** Where the run's record goes (default test/bench/results.json); an --only run writes one only when given it. */
const RESULTS_FILE = process.env.BENCH_RESULTS_FILE ? path.resolve(process.env.BENCH_RESULTS_FILE) : undefined;
const PRODUCTION_TREE = process.env.BENCH_PRODUCTION_TREE ? path.resolve(process.env.BENCH_PRODUCTION_TREE) : undefined;

const rows: Row[] = [];
/** What each public endpoint calls (internal RPCs, database, Redis, media server), printed with the table. */
let callCounts: CallCount[] | undefined;
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** The processes whose CPU per request is recorded: the stack's, once it runs. */
let measuredPids: Record<string, number | undefined> = {};

type Measured = LoadResult & { cpuMicrosPerRequest?: Record<string, number> };

/** `run` with each measured process's CPU per request; any warm-up is done before, its CPU not counted. */
function measured(run: () => Promise<LoadResult>): Promise<Measured> {
  return withCpuPerRequest({ pids: measuredPids }, run);
}

/** An autocannon load at the bench's concurrency: a warm-up run (discarded), then the measured one. */
async function measuredLoad(name: string, options: Omit<LoadOptions, "connections" | "durationSeconds">): Promise<Measured> {
  log(`${name}: warm-up ${WARMUP}s, then ${DURATION}s at ${CONNECTIONS} connections`);
  await load({ ...options, connections: CONNECTIONS, durationSeconds: WARMUP });
  return measured(() => load({ ...options, connections: CONNECTIONS, durationSeconds: DURATION }));
}

function startCeiling(kind: "node" | "express" | "auth-parts", port: number): ChildProcess {
  // Its stdout (auth-parts' access lines) is read and dropped, as the stack's processes' is.
  const server = spawn(process.execPath, ["--conditions=source", path.join(import.meta.dirname, "ceiling-server.ts"), kind, String(port)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  server.stdout!.resume();
  return server;
}

async function waitForHttp(url: string) {
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer`);
}

const rssMb = (pid: number | undefined) => {
  if (!pid) return NaN;
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
};

function ratioRow(scenario: string, result: LoadResult, ceilingName: string, ceiling: LoadResult, goal?: number): Row {
  const ratio = result.requestsPerSecond / ceiling.requestsPerSecond;
  return {
    scenario,
    ...result,
    ceiling: ceilingName,
    ratio,
    ...(goal === undefined ? {} : { goal: `≥ ${goal}`, met: ratio >= goal && result.errors === 0 }),
  };
}

/** A row's ratio to the ceiling of its required parts alone (POST /auth's, GET /webhook's), in the note. */
const withPartsNote = (row: Row, parts: LoadResult): Row => ({
  ...row,
  note: `${(row.requestsPerSecond! / parts.requestsPerSecond).toFixed(2)} of the ceiling of its required parts`,
});

async function ceilings() {
  const [nodePort, expressPort] = [await freePort(), await freePort()];
  const authPartsPort = await freePort();
  const servers = [startCeiling("node", nodePort), startCeiling("express", expressPort), startCeiling("auth-parts", authPartsPort)];
  for (const port of [nodePort, expressPort, authPartsPort]) await waitForHttp(`http://127.0.0.1:${port}/`);
  const bareNode = await measuredLoad("bare node http", { url: `http://127.0.0.1:${nodePort}/`, method: "POST" });
  const bareExpress = await measuredLoad("bare express", { url: `http://127.0.0.1:${expressPort}/`, method: "POST" });
  measuredPids = { "auth parts": servers[2]!.pid };
  const authParts = await measuredLoad("express + POST /auth's required parts", {
    url: `http://127.0.0.1:${authPartsPort}/`,
    method: "POST",
    headers: { "content-type": "application/json" },
  });
  measuredPids = {};
  for (const server of servers) server.kill();
  rows.push(
    { scenario: "ceiling: bare node http", ...bareNode },
    { scenario: "ceiling: bare express", ...bareExpress },
    ratioRow("ceiling: Express + helmet + access log + JSON body + 2 Redis round trips (POST /auth's parts)", authParts, "bare express", bareExpress),
  );
  return { bareNode, bareExpress, authParts };
}

/**
 * What one internal hop costs on this machine (test/bench/hop-ceiling.ts): bare Express calling
 * another process once per request, over bare node:http2, over our grpc-js and Connect transports,
 * and over grpc-js alone. No
 * scenario that makes such a call can beat these, whatever its own code does.
 */
async function hopCeilings(bareExpress: LoadResult) {
  const [frontPort, http2Port, connectPort, grpcJsPort, internalPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  // stdout read and dropped, as the stack's processes' is: the front's access lines of
  // /connect-parts, the backend's start line.
  const start = (...args: (string | number)[]) => {
    const child = spawn(process.execPath, ["--conditions=source", path.join(import.meta.dirname, "hop-ceiling.ts"), ...args.map(String)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout!.resume();
    return child;
  };
  const backend = start("backend", http2Port, connectPort, grpcJsPort, internalPort);
  const front = start("front", frontPort, http2Port, connectPort, grpcJsPort, internalPort);
  // Their CPU per request too: where the hop's cost lands, caller and callee.
  measuredPids = { "hop front": front.pid, "hop backend": backend.pid };
  try {
    await waitForHttp(`http://127.0.0.1:${frontPort}/`);
    const hop = (route: string) => ({ url: `http://127.0.0.1:${frontPort}/${route}`, method: "POST" as const });
    const bareHop = await measuredLoad("express + one bare node:http2 hop", hop("http2"));
    const connectHop = await measuredLoad("express + one Connect hop", hop("connect"));
    const grpcJsToConnect = await measuredLoad("express + one grpc-js hop to our Connect server", hop("grpc-js-to-connect"));
    const grpcJsToGrpcJs = await measuredLoad("express + one grpc-js hop to a grpc-js server", hop("grpc-js-to-grpc-js"));
    const internalHop = await measuredLoad("express + one hop as the gateway calls meeting and webhook", hop("internal"));
    const readParts = await measuredLoad("express + an authenticated request's parts + one grpc-js hop to a 20-row SELECT", {
      url: `http://127.0.0.1:${frontPort}/connect-parts`,
    });
    // How the same parts' cost grows with the length of the page they answer (the growth rows of
    // GET /webhook?pageSize=100 compare 1 item with 100).
    const items = async (count: number) =>
      ({
        scenario: `ceiling: GET /webhook's parts answering ${count} item${count === 1 ? "" : "s"} (rows read, messages encoded and decoded, JSON written)`,
        ...(await measuredLoad(`express + an authenticated request's parts + one grpc-js hop answering ${count} items`, {
          url: `http://127.0.0.1:${frontPort}/connect-parts/items/${count}`,
        })),
      }) satisfies Row;
    const [oneItem, hundredItems] = [await items(1), await items(100)];
    rows.push(
      ratioRow("ceiling: Express + one bare node:http2 hop", bareHop, "bare express", bareExpress),
      // Issue #35's hop target: the hop as the gateway makes it to meeting and webhook (our grpc-js
      // transport and server, bridge and interceptors included) against the bare node:http2 hop.
      ratioRow("ceiling: Express + one hop as the gateway calls meeting and webhook (grpc-js, ours)", internalHop, "bare http2 hop", bareHop, 0.3),
      ratioRow("ceiling: Express + one Connect hop (as the gateway calls identity)", connectHop, "bare http2 hop", bareHop),
      ratioRow("ceiling: Express + one gRPC hop, grpc-js client → our Connect server", grpcJsToConnect, "bare http2 hop", bareHop),
      ratioRow("ceiling: Express + one gRPC hop, bare grpc-js client → bare grpc-js server", grpcJsToGrpcJs, "bare http2 hop", bareHop),
      ratioRow("ceiling: POST /auth's parts + one grpc-js hop to a 20-row SELECT (GET /webhook's parts)", readParts, "bare express", bareExpress),
      oneItem,
      { ...hundredItems, note: `p99 ${(hundredItems.p99Ms! / oneItem.p99Ms!).toFixed(2)}× the 1-item row's` },
    );
    return { readParts };
  } finally {
    measuredPids = {};
    backend.kill();
    front.kill();
  }
}

async function insertLoopCeiling(databaseUrl: string): Promise<LoadResult> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: CONNECTIONS });
  await pool.query(
    "CREATE TABLE IF NOT EXISTS public.bench_insert (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), title text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
  );
  // Prepared, as the services' statements are (createPool): the ceiling is the fastest raw insert.
  const insert = () => pool.query({ name: "bench_insert", text: "INSERT INTO public.bench_insert (title) VALUES ($1)", values: ["Bench meeting"] });
  await loop(CONNECTIONS, WARMUP, insert);
  log(`raw INSERT loop: warm-up ${WARMUP}s, then ${DURATION}s at ${CONNECTIONS} connections`);
  const result = await measured(() => loop(CONNECTIONS, DURATION, insert));
  await pool.end();
  rows.push({ scenario: "ceiling: pg single-row INSERT loop", ...result });
  return result;
}

async function webhookPipeline(stack: Stack, tenant: Tenant) {
  const receivedAt = new Map<string, number>();
  let done: () => void = () => undefined;
  const allReceived = new Promise<void>((resolve) => (done = resolve));
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      res.writeHead(204).end();
      const payload = JSON.parse(Buffer.concat(chunks).toString()) as { type: string; data: { meetingId: string } };
      if (payload.type !== "meeting.ended" || receivedAt.has(payload.data.meetingId)) return;
      receivedAt.set(payload.data.meetingId, performance.now());
      if (receivedAt.size === PIPELINE_MEETINGS) done();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => receiver.listen(port, "127.0.0.1", resolve));
  const created = await callApi(apiBase(stack), "POST", "/webhook", {
    key: tenant.apiKey,
    body: { url: `http://127.0.0.1:${port}/hook`, events: ["meeting.ended"] },
  });
  if (created.status !== 201) throw new Error(`webhook registration failed: ${created.status} ${await created.text()}`);

  log(`webhook pipeline: creating ${PIPELINE_MEETINGS} meetings`);
  const ids: string[] = [];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (ids.length < PIPELINE_MEETINGS) {
        const response = await callApi(apiBase(stack), "POST", "/meeting", { key: tenant.apiKey, body: { title: "Pipeline" } });
        ids.push(((await response.json()) as { id: string }).id);
      }
    }),
  );
  ids.length = PIPELINE_MEETINGS;

  log(`webhook pipeline: ending ${PIPELINE_MEETINGS} meetings`);
  const endedAt = new Map<string, number>();
  let errors = 0;
  const queue = [...ids];
  // CPU per delivery of each service, of this process (the load generator and the receiver), of
  // Postgres, Kafka and Redis, and of the whole machine, over the ends and the deliveries.
  const cpu = cpuMeter({
    pids: { ...measuredPids, bench: process.pid },
    commands: { postgres: "postgres", kafka: "java", redis: "redis-server" },
    machine: true,
  });
  const client = keepAliveClient(stack.gatewayUrl, CONNECTIONS);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      for (let id = queue.shift(); id; id = queue.shift()) {
        endedAt.set(id, performance.now());
        const status = await client.request("POST", `/api/v1/meeting/${id}/end`, { authorization: `Bearer ${tenant.apiKey}` }).catch(() => 0);
        if (status !== 200) errors++;
      }
    }),
  );
  client.close();
  // How fast the ends themselves went through the API: the pipeline cannot deliver faster.
  const endsPerSecond = ids.length / ((performance.now() - started) / 1000);
  const timeout = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 120_000));
  if ((await Promise.race([allReceived, timeout])) === "timeout") errors += PIPELINE_MEETINGS - receivedAt.size;
  const finished = Math.max(...receivedAt.values());
  const cpuMicrosPerRequest = cpu.microsPer(receivedAt.size);
  receiver.close();
  const latencies = [...receivedAt].map(([id, at]) => at - endedAt.get(id)!);
  const { p50Ms, p95Ms, p99Ms } = percentiles(latencies);
  const perSecond = receivedAt.size / ((finished - started) / 1000);
  rows.push({
    scenario: `webhook pipeline: ${PIPELINE_MEETINGS} meetings ended → delivered`,
    requestsPerSecond: perSecond,
    p50Ms,
    p99Ms,
    errors,
    requests: receivedAt.size,
    cpuMicrosPerRequest,
    goal: "≥ 500/s, p99 ≤ 1000 ms",
    met: perSecond >= 500 && p99Ms <= 1000 && errors === 0,
    note: `p95 ${p95Ms.toFixed(0)} ms; meetings ended through the API at ${endsPerSecond.toFixed(0)}/s`,
  });
}

/** POST /meeting against its ceiling, the bare single-row INSERT loop, measured in the same run. */
async function meetingCreationRow(stack: Stack, tenant: Tenant) {
  const insertCeiling = await insertLoopCeiling(stack.databaseUrl);
  const meetingResult = await measuredLoad("POST /meeting", {
    url: `${stack.gatewayUrl}/api/v1/meeting`,
    method: "POST",
    headers: { authorization: `Bearer ${tenant.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ title: "Bench meeting", attendees: ["a@example.com", "b@example.com"] }),
  });
  rows.push(ratioRow("POST /api/v1/meeting (2 attendees)", meetingResult, "pg INSERT loop", insertCeiling, 0.2));
}

async function main() {
  for (const name of ["DATABASE_URL", "REDIS_URL", "KAFKA_BROKERS"]) {
    if (!process.env[name]) throw new Error(`${name} is unset: run eval "$(scripts/infra up)" first (npm run bench does)`);
  }
  if (ONLY) return onlySections(ONLY);
  callCounts = await countCalls({ media: !QUICK, log });
  const { bareExpress, authParts } = await ceilings();
  const { readParts } = await hopCeilings(bareExpress);

  const stack = await startBenchStack(!QUICK);
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idle = serviceRss(stack);
    const tenant = await createTenant(stack);

    const oauth = await authRows(stack, tenant, { bareExpress, authParts });

    log("OAuth refresh grants: straight to identity's OAuth listener, then through the gateway");
    const timing = { warmupSeconds: WARMUP, durationSeconds: DURATION };
    const directRefresh = await refreshGrants(stack.urls.identityOAuth, oauth.app, oauth.refreshTokens, timing);
    const gatewayRefresh = await refreshGrants(stack.gatewayUrl, oauth.app, oauth.refreshTokens, timing);
    await oauth.app.close();
    rows.push({ scenario: `ceiling: refresh grants at identity (${REFRESH_CHAINS} chains)`, ...directRefresh });
    rows.push(ratioRow(`OAuth refresh grants via gateway (${REFRESH_CHAINS} chains)`, gatewayRefresh, "identity direct", directRefresh));

    await meetingCreationRow(stack, tenant);

    await webhookListRow(stack, tenant, { bareExpress, readParts });

    const pipelineTenant = await createTenant(stack);
    await webhookPipeline(stack, pipelineTenant);
    await dataSections(stack, ["backlog", "growth"]);

    if (!QUICK) await meetingRoom(stack, tenant);

    await memoryRows(stack, idle);
  } finally {
    await stack.stop();
  }
  // Presence sent as the media server's webhooks needs a stack without one (see roomPresence).
  rows.push(...(await roomRows()));
  print();
  if (!QUICK) console.log(await measureRecordingStart());
  if (!QUICK) console.log(await measureRecordingCost());
  if (!QUICK) console.log(measureTranscriptionCost());
  if (PROFILE_DIR) summariseProfiles(PROFILE_DIR);
}

const serviceRss = (stack: Stack) => Object.fromEntries(serviceNames.map((name) => [name, rssMb(stack.pid(name))]));

/** Each service's RSS idle (given), at the end of the load (now) and once it has given back what the load left. */
async function memoryRows(stack: Stack, idle: Record<string, number>) {
  const end = serviceRss(stack);
  // Then idle: each process gives back what the load left once it samples itself idle (every
  // 10 s, after a busy sample: services/platform/src/idle-memory-release.ts), so within 20 s.
  await new Promise((resolve) => setTimeout(resolve, MEMORY_SETTLE_SECONDS * 1000));
  const settled = serviceRss(stack);
  // Issue #18: each service ≤ 150 MB idle (not the gateway, which holds the pages' bundles) and
  // every process ≤ 250 MB after the load.
  for (const name of serviceNames) {
    const idleGoal = name !== "gateway";
    rows.push({
      scenario: `memory: ${name} RSS MB idle → end of the load → ${MEMORY_SETTLE_SECONDS} s later`,
      note: `${idle[name]!.toFixed(0)} → ${end[name]!.toFixed(0)} → ${settled[name]!.toFixed(0)}`,
      goal: idleGoal ? `≤ 150 MB idle, ≤ 250 MB ${MEMORY_SETTLE_SECONDS} s after the load` : `≤ 250 MB ${MEMORY_SETTLE_SECONDS} s after the load`,
      met: (!idleGoal || idle[name]! <= 150) && settled[name]! <= 250,
    });
  }
}

/** GET /webhook with 20 subscriptions, against bare Express and the ceiling of its parts. */
async function webhookListRow(stack: Stack, tenant: Tenant, ceiling: { bareExpress: LoadResult; readParts: LoadResult }) {
  for (let i = 0; i < 20; i++) {
    await callApi(apiBase(stack), "POST", "/webhook", { key: tenant.apiKey, body: { url: `https://example.com/hook/${i}`, events: ["meeting.ended"] } });
  }
  const listResult = await measuredLoad("GET /webhook", { url: `${stack.gatewayUrl}/api/v1/webhook`, headers: { authorization: `Bearer ${tenant.apiKey}` } });
  rows.push(withPartsNote(ratioRow("GET /api/v1/webhook (20 subscriptions)", listResult, "bare express", ceiling.bareExpress, 0.08), ceiling.readParts));
}

/** POST /auth with an API key and with an OAuth access token, against both ceilings; returns the OAuth chains for the refresh rows. */
async function authRows(stack: Stack, tenant: Tenant, ceiling: { bareExpress: LoadResult; authParts: LoadResult }) {
  const url = `${stack.gatewayUrl}/api/v1/auth`;
  const apiKey = await measuredLoad("POST /auth (API key)", {
    url,
    method: "POST",
    headers: { authorization: `Bearer ${tenant.apiKey}`, "content-type": "application/json" },
  });
  const apiKeyRow = ratioRow("POST /api/v1/auth (API key, cache warm)", apiKey, "bare express", ceiling.bareExpress, 0.5);
  // Issue #35: with its latency too.
  const apiKeyGoal = { goal: "≥ 0.5, p99 ≤ 20 ms", met: apiKeyRow.met === true && (apiKey.p99Ms ?? Infinity) <= 20 };
  rows.push(withPartsNote({ ...apiKeyRow, ...apiKeyGoal }, ceiling.authParts));
  const oauth = await authorizeChains(stack, tenant);
  const accessToken = await measuredLoad("POST /auth (OAuth)", { url, method: "POST", headers: { authorization: `Bearer ${oauth.accessToken}` } });
  rows.push(withPartsNote(ratioRow("POST /api/v1/auth (OAuth access token)", accessToken, "bare express", ceiling.bareExpress, 0.5), ceiling.authParts));
  return oauth;
}

async function startBenchStack(media: boolean, env: Record<string, string> = {}) {
  if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
  // The production configuration: request logging at its default level (info), rate limiting on
  // (limits raised so that the load generator's one credential is not refused).
  const stack = await startStack({
    media,
    // The participant cap too, so that the room growth rows can seat 200 people.
    env: {
      LOG_LEVEL: "info",
      RATE_LIMIT_PER_SECOND: "1000000",
      JOIN_GRANTS_PER_MINUTE: "1000000",
      JOIN_GRANTS_PER_MEETING_PER_MINUTE: "1000000",
      MEETING_MAX_PARTICIPANTS: "250",
      ...env,
    },
    nodeFlags: PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [],
    // BENCH_GATEWAY_TRANSPORT=connect: the gateway calls meeting and webhook as before decision 0018.
    gatewayTransport: process.env.BENCH_GATEWAY_TRANSPORT === "connect" ? "connect" : "grpc-js",
    ...(PRODUCTION_TREE ? { productionTree: PRODUCTION_TREE } : {}),
  });
  measuredPids = Object.fromEntries(serviceNames.map((name) => [name, stack.pid(name)]));
  return stack;
}

/**
 * A meeting room's signaling on our side with 10, 100 and 200 people present (growth.ts,
 * roomPresence), on a stack of its own: a real media server opens the room on each grant, as in
 * production, and the room reconciler is held back (its interval at the maximum, past the
 * bench's end), since it would remove the people the bench seats by webhook, whom the media
 * server does not see in the room.
 */
async function roomRows(): Promise<Row[]> {
  const stack = await startBenchStack(true, { ROOM_RECONCILE_INTERVAL_MS: "3600000" });
  try {
    return await roomPresence({
      stack,
      tenant: await createTenant(stack),
      presentCounts: QUICK ? [10, 100] : [10, 100, 200],
      concurrency: 4,
      warmupSeconds: WARMUP,
      durationSeconds: DURATION,
      log,
    });
  } finally {
    await stack.stop();
  }
}

/** The sections that measure how the platform copes with stored data: a queued backlog, and growth. */
async function dataSections(stack: Stack, sections: string[]) {
  if (sections.includes("backlog")) {
    log(`dispatcher backlog: ${BACKLOG_DELIVERIES} due deliveries queued at once`);
    rows.push(await dispatcherBacklog(stack, await createTenant(stack), BACKLOG_DELIVERIES, Math.ceil(BACKLOG_DELIVERIES / 10)));
  }
  if (sections.includes("growth")) {
    rows.push(
      ...(await growth({
        stack,
        tenant: await createTenant(stack),
        measure: measuredLoad,
        subscriptionCounts: QUICK ? [1, 100] : [1, 100, 1_000],
        rowCounts: [GROWTH_MAX_ROWS / 100, GROWTH_MAX_ROWS],
        warmupSeconds: WARMUP,
        durationSeconds: DURATION,
        log,
      })),
    );
  }
}

async function onlySections(sections: string[]) {
  if (sections.includes("calls")) callCounts = await countCalls({ media: true, log });
  const authCeilings = sections.includes("auth") || sections.includes("list") ? await ceilings() : undefined;
  const listCeiling = sections.includes("list") ? await hopCeilings(authCeilings!.bareExpress) : undefined;
  // calls, join, rooms and recording start stacks of their own.
  if (sections.some((section) => !["calls", "recording", "recording-start", "transcription", "media", "rooms", "join"].includes(section))) {
    const stack = await startBenchStack(false);
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const idle = serviceRss(stack);
      if (sections.includes("auth")) await (await authRows(stack, await createTenant(stack), authCeilings!)).app.close();
      if (sections.includes("meeting")) await meetingCreationRow(stack, await createTenant(stack));
      if (listCeiling) await webhookListRow(stack, await createTenant(stack), { bareExpress: authCeilings!.bareExpress, readParts: listCeiling.readParts });
      if (sections.includes("pipeline")) await webhookPipeline(stack, await createTenant(stack));
      await dataSections(stack, sections);
      // The memory rows of the full run, around this stack's sections.
      if (sections.includes("memory")) await memoryRows(stack, idle);
    } finally {
      await stack.stop();
    }
  }
  if (sections.includes("join")) {
    // Join grants open the room at the media server: a stack with one.
    const stack = await startBenchStack(true);
    try {
      const tenant = await createTenant(stack);
      await joinGrantRow(stack, tenant);
      rows.push(...joinPhaseRows(await measureJoinPhases(stack, tenant)));
    } finally {
      await stack.stop();
    }
  }
  if (sections.includes("rooms")) rows.push(...(await roomRows()));
  print();
  if (sections.includes("recording") || sections.includes("recording-start")) console.log(await measureRecordingStart());
  if (sections.includes("recording")) console.log(await measureRecordingCost());
  if (sections.includes("transcription")) console.log(measureTranscriptionCost());
  if (sections.includes("media")) console.log(formatMediaCostTable(await measureMediaCost()));
  if (PROFILE_DIR) summariseProfiles(PROFILE_DIR);
}

/** Join grants at JOIN_CONCURRENCY concurrent requests (each opens the room at the media server). */
async function joinGrantRow(stack: Stack, tenant: Tenant) {
  // Where a grant's CPU goes: our processes, the media server, Postgres and the whole machine (the
  // browser in the room and the load generator included), per grant and per CreateRoom alone.
  const sources = { pids: { ...measuredPids, "media server": stack.media?.process.pid }, commands: { postgres: "postgres" }, machine: true };
  const { grants, createRoom } = await joinGrantLatency(stack, tenant, DURATION, (run) => withCpuPerRequest(sources, run));
  rows.push({ scenario: `ceiling: the media server's CreateRoom alone, same open room (${JOIN_CONCURRENCY} concurrent)`, ...createRoom });
  rows.push({
    scenario: `POST /api/v1/meeting/:id/join (${JOIN_CONCURRENCY} concurrent)`,
    ...grants,
    note: `join-grant latency; CreateRoom alone: ${createRoom.requestsPerSecond.toFixed(0)}/s, p99 ${createRoom.p99Ms.toFixed(0)} ms`,
    goal: "p99 ≤ 100 ms (idle machine)",
    met: (grants.p99Ms ?? Infinity) <= 100 && grants.errors === 0,
  });
}

async function meetingRoom(stack: Stack, tenant: Tenant) {
  log(`meeting room: join grants at ${JOIN_CONCURRENCY} concurrent requests, then the join's phases against a bare livekit-client page`);
  await joinGrantRow(stack, tenant);
  rows.push(...joinPhaseRows(await measureJoinPhases(stack, tenant)));
}

/** The profiles' top frames, per process (the profile files are named by process id). */
function summariseProfiles(dir: string) {
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".cpuprofile"))) {
    const pid = Number(file.split(".")[3]);
    const service = Object.entries(measuredPids).find(([, candidate]) => candidate === pid)?.[0] ?? `pid ${pid}`;
    const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Parameters<typeof topFrames>[0];
    console.log(`\n${service} (${file}; shares of its busy samples)`);
    console.log(
      `  by package: ${topLocations(profile, 8)
        .map((share) => `${share.frame} ${(share.self * 100).toFixed(1)}%`)
        .join(", ")}`,
    );
    for (const share of topFrames(profile, 12)) console.log(`  ${(share.self * 100).toFixed(1).padStart(5)}%  ${share.frame}`);
  }
}

/** "gateway 95 · identity 0 · …": the processes that did work for the scenario. */
const cpuSummary = (perRequest: Record<string, number>) =>
  Object.entries(perRequest)
    .filter(([, micros]) => micros >= 1)
    .map(([name, micros]) => `${name} ${micros.toFixed(0)}`)
    .join(" · ");

function print() {
  const format = (value: number | undefined, digits = 0) => (value === undefined || Number.isNaN(value) ? "" : value.toFixed(digits));
  const table = rows.map((row) => ({
    scenario: row.scenario,
    "req/s": format(row.requestsPerSecond),
    "p50 ms": format(row.p50Ms, 1),
    "p99 ms": format(row.p99Ms, 1),
    errors: row.errors ?? "",
    ratio: row.ratio === undefined ? "" : `${row.ratio.toFixed(2)} of ${row.ceiling}`,
    goal: row.goal ?? "",
    met: row.met === undefined ? "" : row.met ? "yes" : "NO",
    "CPU µs/req": row.cpuMicrosPerRequest ? cpuSummary(row.cpuMicrosPerRequest) : "",
    note: row.note ?? "",
  }));
  console.table(table);
  if (callCounts) console.log(`\n${formatCallCounts(callCounts)}\n`);
  const machine = {
    cores: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
  };
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  const settings = { quick: QUICK, durationSeconds: DURATION, warmupSeconds: WARMUP, connections: CONNECTIONS, build: PRODUCTION_TREE ? "compiled" : "source" };
  // A partial run (--only) must not replace the record of the full one: it writes one only where told.
  if (!ONLY || RESULTS_FILE) {
    writeFileSync(
      RESULTS_FILE ?? path.join(import.meta.dirname, "results.json"),
      JSON.stringify({ measuredAt: new Date().toISOString(), commit, machine, settings, rows, callCounts }, null, 2),
    );
  }
  const failed = rows.filter((row) => (row.errors ?? 0) > 0);
  if (failed.length > 0) {
    log(`errors in: ${failed.map((row) => (row.firstError ? `${row.scenario} (first: ${row.firstError})` : row.scenario)).join(", ")}`);
    process.exitCode = 1;
  }
}

await main();
