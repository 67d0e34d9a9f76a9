import { spawn, type ChildProcess } from "node:child_process";
import http2 from "node:http2";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { SERVICE_ENVIRONMENT, SERVICE_NODE_FLAGS, tracingLaunch } from "@svc/platform";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import { egressBinary, superviseEgress, type SupervisedEgress } from "../../scripts/egress-server.ts";
import { startMediaRedis, type RunningMediaRedis } from "../../scripts/media-redis.ts";
import { startMediaServer, type RunningMediaServer } from "../../scripts/media-server.ts";
import { serviceStopBoundMs, stopProcess } from "../../scripts/supervision.ts";
import { createTestDatabase, deleteKafkaRun, endPoolBeforeDrop, freePorts, infra, uniqueName } from "./infra.ts";
import { checkResponsesOf } from "./openapi-responses.ts";

const root = path.resolve(import.meta.dirname, "../..");
/** Generous: a Kafka outage makes kafkajs log a connection error every few milliseconds. */
const LOG_LIMIT = 4_000_000;
export const serviceNames = ["identity", "meeting", "webhook", "gateway"] as const;
export type ServiceName = (typeof serviceNames)[number];

export interface Stack {
  gatewayUrl: string;
  /** The stack's own media server, with `media: true`. */
  media?: RunningMediaServer & { apiKey: string; apiSecret: string; publicUrl: string };
  /** The meeting service's listener for media-server webhooks. */
  mediaWebhookUrl: string;
  /**
   * With `recording: true`: the folder egress writes recordings into (the services' RECORDING_DIR),
   * and the supervised egress process (kill it to see a crash; `ready()` waits for its restart).
   */
  recording?: { dir: string; egress: SupervisedEgress };
  /** identityAdmin: IdentityAdminService, on identity's ADMIN_PORT. */
  /** Each service's address; meetingInternal and webhookInternal are the grpc-js ports the gateway calls (`grpc://`). */
  urls: Record<"identity" | "identityOAuth" | "identityAdmin" | "meeting" | "webhook" | "meetingInternal" | "webhookInternal", string>;
  /** Each process's `GET /metrics` URL, with `metrics: true`. */
  metricsUrls?: Record<ServiceName, string>;
  databaseUrl: string;
  env: Record<string, string>;
  /** A pg client on this stack's own database (all schemas). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
  /** Runs the admin CLI against this stack and returns its parsed `--json` output. */
  cli<T = Record<string, unknown>>(...args: string[]): Promise<T>;
  /** Runs the admin CLI and returns exit code, stdout and stderr without parsing. */
  cliRaw(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Sends `signal` to one process and waits for it to exit. */
  kill(service: ServiceName, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped process again and waits until it is ready. */
  start(service: ServiceName): Promise<void>;
  /** The OS process id of a running process (for memory figures). */
  pid(service: ServiceName): number | undefined;
  /** Logs each process wrote, for diagnosing a failing test. */
  logs(service: ServiceName): string;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Extra environment for every process (for example compressed retry schedules). */
  env?: Record<string, string>;
  /** Use the infra Kafka and Redis (default true); false runs the embedded fallbacks. */
  kafka?: boolean;
  redis?: boolean;
  /** Start a media server (LiveKit) of its own for this stack (default false). */
  media?: boolean;
  /**
   * Record too (default false; implies `media`): LiveKit Egress beside the media server, both on a
   * Redis of their own, writing into a fresh folder given to the services as RECORDING_DIR.
   */
  recording?: boolean;
  /** Give every process a METRICS_PORT of its own (default false: metrics off, as when unset). */
  metrics?: boolean;
  /**
   * Where the media server posts its webhooks, given the meeting service's listener URL (default:
   * straight to it). Tests that lose webhooks on purpose put a proxy in between.
   */
  mediaWebhookTarget?: (meetingListenerUrl: string) => string;
  /**
   * Where the services reach the stack's database, given its URL (default: directly). Tests that
   * take the database away put a proxy in between.
   */
  databaseUrl?: (url: string) => string;
  /**
   * How the gateway calls meeting and webhook: over grpc-js to their INTERNAL_GRPC_PORT (the
   * default, as deployed) or with Connect to their GRPC_PORT, as before decision 0018 (the bench
   * compares the two with BENCH_GATEWAY_TRANSPORT).
   */
  gatewayTransport?: "grpc-js" | "connect";
  /** Extra Node flags for every service process (the bench passes `--cpu-prof` here). */
  nodeFlags?: string[];
  /**
   * A tree built by scripts/build-production: run its compiled JavaScript (`node dist/main.js`, as
   * the image does) instead of the sources (the default), for comparing the two (test/bench/memory.ts).
   */
  productionTree?: string;
}

/**
 * Starts identity, meeting, webhook and the gateway as real processes on free loopback ports,
 * against a fresh database of the infra Postgres, the infra Redis and Kafka (with topics and
 * consumer groups of its own), exactly as `npm start` runs them in full mode.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  // A chosen port can still be taken before a process binds it (an outgoing connection of anything
  // on this machine may get it): start again on fresh ports rather than fail the test.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startStackOnce(options);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes("EADDRINUSE")) throw error;
    }
  }
}

async function startStackOnce(options: StackOptions): Promise<Stack> {
  const database = await createTestDatabase();
  const metricsPortCount = options.metrics ? serviceNames.length : 0;
  const chosenPorts = await freePorts(12 + metricsPortCount + (options.recording ? 4 : 0));
  const ports = {
    identity: chosenPorts[0]!,
    identityOAuth: chosenPorts[1]!,
    meeting: chosenPorts[2]!,
    webhook: chosenPorts[3]!,
    gateway: chosenPorts[4]!,
    meetingMediaWebhooks: chosenPorts[5]!,
    media: chosenPorts[6]!,
    mediaRtcTcp: chosenPorts[7]!,
    // A free TCP port number is very likely a free UDP one too.
    mediaRtcUdp: chosenPorts[8]!,
    identityAdmin: chosenPorts[9]!,
    meetingInternal: chosenPorts[10]!,
    webhookInternal: chosenPorts[11]!,
  };
  const mediaWebhookUrl = `http://127.0.0.1:${ports.meetingMediaWebhooks}/livekit/webhook`;
  const mediaCredentials = { apiKey: `test-${randomBytes(4).toString("hex")}`, apiSecret: randomBytes(32).toString("base64url") };
  let media: Stack["media"];
  let recording: Stack["recording"];
  let mediaRedis: RunningMediaRedis | undefined;
  let recordingDir: string | undefined;
  // Egress first (it stops its recordings, finishing their files, through the media server), then
  // the media server, then their Redis.
  const stopMedia = async () => {
    await recording?.egress.stop();
    await media?.stop();
    await mediaRedis?.stop();
    if (recordingDir) await rm(recordingDir, { recursive: true, force: true });
  };
  if (options.media || options.recording) {
    const mediaOutput: string[] = [];
    const recordingPorts = chosenPorts.slice(12 + metricsPortCount);
    try {
      // Built (once) before anything starts, so a cold build does not eat into start-up timeouts.
      const egress = options.recording ? await egressBinary() : undefined;
      if (options.recording) mediaRedis = await startMediaRedis(recordingPorts[0]!);
      const server = await startMediaServer({
        port: ports.media,
        rtcTcpPort: ports.mediaRtcTcp,
        rtcUdpPort: ports.mediaRtcUdp,
        ...mediaCredentials,
        webhookUrl: options.mediaWebhookTarget ? options.mediaWebhookTarget(mediaWebhookUrl) : mediaWebhookUrl,
        onOutput: (chunk) => void mediaOutput.push(chunk.toString()),
        ...(mediaRedis ? { redisAddress: mediaRedis.address } : {}),
      });
      media = { ...server, ...mediaCredentials, publicUrl: `ws://127.0.0.1:${ports.media}` };
      if (egress && mediaRedis) {
        recordingDir = await mkdtemp(path.join(os.tmpdir(), "svc-recordings-"));
        const supervised = await superviseEgress({
          binary: egress,
          mediaPort: ports.media,
          ...mediaCredentials,
          redisAddress: mediaRedis.address,
          healthPort: recordingPorts[1]!,
          prometheusPort: recordingPorts[2]!,
          templatePort: recordingPorts[3]!,
          log: (message) => void mediaOutput.push(`${message}\n`),
        });
        recording = { dir: recordingDir, egress: supervised };
      }
    } catch (error) {
      await stopMedia();
      await database.drop();
      throw new Error(`${String(error)}\n${mediaOutput.join("")}`);
    }
  }
  const urls = {
    identity: `http://127.0.0.1:${ports.identity}`,
    identityOAuth: `http://127.0.0.1:${ports.identityOAuth}`,
    identityAdmin: `http://127.0.0.1:${ports.identityAdmin}`,
    meeting: `http://127.0.0.1:${ports.meeting}`,
    webhook: `http://127.0.0.1:${ports.webhook}`,
    meetingInternal: `grpc://127.0.0.1:${ports.meetingInternal}`,
    webhookInternal: `grpc://127.0.0.1:${ports.webhookInternal}`,
  };
  const gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
  checkResponsesOf(gatewayUrl);
  const runId = uniqueName("run");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    NODE_ENV: "test",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
    DATABASE_URL: options.databaseUrl?.(database.url) ?? database.url,
    ...(options.redis === false ? {} : { REDIS_URL: infra.redisUrl(), REDIS_KEY_PREFIX: `${runId}:` }),
    ...(options.kafka === false ? {} : { KAFKA_BROKERS: infra.kafkaBrokers(), KAFKA_TOPIC_PREFIX: `${runId}.` }),
    PUBLIC_URL: gatewayUrl,
    IDENTITY_URL: urls.identity,
    IDENTITY_OAUTH_URL: urls.identityOAuth,
    MEETING_URL: options.gatewayTransport === "connect" ? urls.meeting : urls.meetingInternal,
    WEBHOOK_URL: options.gatewayTransport === "connect" ? urls.webhook : urls.webhookInternal,
    ADMIN_TOKEN: `test-admin-${randomBytes(24).toString("base64url")}`,
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    WEBHOOK_ALLOW_INSECURE: "true",
    // Tests drive one tenant far faster than a client should; the rate-limit test sets its own.
    RATE_LIMIT_PER_SECOND: "10000",
    JOIN_GRANTS_PER_MINUTE: "10000",
    // Every stack has a media server address of its own, started or not, so no test ever
    // reaches a media server it did not start.
    LIVEKIT_URL: `http://127.0.0.1:${ports.media}`,
    LIVEKIT_PUBLIC_URL: `ws://127.0.0.1:${ports.media}`,
    LIVEKIT_API_KEY: mediaCredentials.apiKey,
    LIVEKIT_API_SECRET: mediaCredentials.apiSecret,
    ...(recording ? { RECORDING_DIR: recording.dir } : {}),
    ...options.env,
  };
  const metricsPorts = options.metrics ? Object.fromEntries(serviceNames.map((service, index) => [service, chosenPorts[12 + index]!])) : undefined;
  const metricsEnv = (service: ServiceName): Record<string, string> => (metricsPorts ? { METRICS_PORT: String(metricsPorts[service]) } : {});
  const portEnv: Record<ServiceName, Record<string, string>> = {
    identity: {
      GRPC_PORT: String(ports.identity),
      OAUTH_PORT: String(ports.identityOAuth),
      ADMIN_PORT: String(ports.identityAdmin),
      ...metricsEnv("identity"),
    },
    meeting: {
      GRPC_PORT: String(ports.meeting),
      INTERNAL_GRPC_PORT: String(ports.meetingInternal),
      LIVEKIT_WEBHOOK_PORT: String(ports.meetingMediaWebhooks),
      ...metricsEnv("meeting"),
    },
    webhook: { GRPC_PORT: String(ports.webhook), INTERNAL_GRPC_PORT: String(ports.webhookInternal), ...metricsEnv("webhook") },
    gateway: { PORT: String(ports.gateway), ...metricsEnv("gateway") },
  };
  const processes = new Map<ServiceName, ChildProcess>();
  // Each process's recent output as chunks, at most LOG_LIMIT characters (oldest dropped first).
  const output = new Map<ServiceName, string[]>(serviceNames.map((name) => [name, []]));
  const logsOf = (service: ServiceName) => (output.get(service) ?? []).join("");
  const tree = options.productionTree ?? root;
  const dir = (service: ServiceName) => (service === "gateway" ? path.join(tree, "gateway") : path.join(tree, "services", service));
  const entry = options.productionTree ? ["dist/main.js"] : ["--conditions=source", "src/main.ts"];

  const start = async (service: ServiceName) => {
    const tracing = tracingLaunch(service, env);
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...(options.nodeFlags ?? []), ...tracing.nodeArguments, ...entry], {
      cwd: dir(service),
      env: { ...env, ...SERVICE_ENVIRONMENT, ...portEnv[service], ...tracing.env },
      // An IPC channel: the services stop themselves should this test process die without stopping them.
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    const chunks = output.get(service)!;
    let size = chunks.reduce((total, chunk) => total + chunk.length, 0);
    const append = (chunk: Buffer) => {
      chunks.push(chunk.toString());
      size += chunk.length;
      while (size > LOG_LIMIT && chunks.length > 1) size -= chunks.shift()!.length;
    };
    child.stdout!.on("data", append);
    child.stderr!.on("data", append);
    processes.set(service, child);
    await waitUntilReady(service);
  };

  const waitUntilReady = async (service: ServiceName) => {
    const url = `${gatewayUrl}/healthz`;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const child = processes.get(service)!;
      if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}:\n${logsOf(service)}`);
      const ok =
        service === "gateway"
          ? await fetch(url).then(
              (response) => response.ok,
              () => false,
            )
          : await reportsServing(urls[service]);
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${service} did not become ready:\n${logsOf(service)}`);
  };

  const kill = async (service: ServiceName, signal: NodeJS.Signals = "SIGTERM") => {
    const child = processes.get(service);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill(signal);
    });
  };

  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const cliRaw = (...args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ["--conditions=source", path.join(root, "services/identity/src/cli/main.ts"), ...args], {
        env: { ...env, SVC_IDENTITY_ADMIN_URL: urls.identityAdmin, SVC_ADMIN_TOKEN: env.ADMIN_TOKEN! },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      // "close", not "exit": a process can exit before its output has all been read, and a busy
      // machine then handed back an empty stdout for a CLI call that had printed its JSON.
      child.once("close", (code) => resolve({ code, stdout, stderr }));
    });

  const stack: Stack = {
    gatewayUrl,
    ...(media ? { media } : {}),
    ...(recording ? { recording } : {}),
    mediaWebhookUrl,
    urls,
    ...(metricsPorts
      ? {
          metricsUrls: Object.fromEntries(serviceNames.map((service) => [service, `http://127.0.0.1:${metricsPorts[service]}/metrics`])) as Record<
            ServiceName,
            string
          >,
        }
      : {}),
    databaseUrl: database.url,
    env,
    query: (sql, values) => pool.query(sql, values),
    cliRaw,
    async cli(...args) {
      const result = await cliRaw(...args, "--json");
      if (result.code !== 0) throw new Error(`cli ${args.join(" ")} failed (${result.code}): ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
    kill,
    start,
    pid: (service) => processes.get(service)?.pid,
    logs: logsOf,
    async stop() {
      // The services first, each within its own drain bound (then SIGKILL), the media server after them.
      await Promise.all([...processes.values()].map((child) => stopProcess(child, serviceStopBoundMs(env))));
      await stopMedia();
      await endPoolBeforeDrop(pool);
      await database.drop();
      if (options.kafka !== false) await deleteKafkaRun(`${runId}.`);
    },
  };

  try {
    // identity first: the others verify credentials through it.
    await start("identity");
    await Promise.all([start("meeting"), start("webhook"), start("gateway")]);
  } catch (error) {
    await stack.stop().catch(() => undefined);
    throw error;
  }
  return stack;
}

/**
 * Asks a service's grpc.health.v1 Check over the Connect protocol. The services speak cleartext
 * HTTP/2 only (h2c), which fetch cannot, so this uses node:http2 and closes its session.
 */
function reportsServing(baseUrl: string): Promise<boolean> {
  return new Promise((resolve) => {
    const session = http2.connect(baseUrl);
    let status = 0;
    let body = "";
    const done = (serving: boolean) => {
      session.close();
      resolve(serving);
    };
    session.once("error", () => done(false));
    session.setTimeout(2_000, () => {
      session.destroy();
      resolve(false);
    });
    const request = session.request({
      ":method": "POST",
      ":path": "/grpc.health.v1.Health/Check",
      "content-type": "application/json",
    });
    request.setEncoding("utf8");
    request.once("response", (headers) => (status = Number(headers[":status"])));
    request.on("data", (chunk: string) => (body += chunk));
    request.once("end", () => done(status === 200 && /"status":\s*"SERVING"/.test(body)));
    request.once("error", () => done(false));
    request.end("{}");
  });
}
