// Renders the Helm chart with the real Helm (scripts/helm) and reads what it gives each process:
// command, environment (ConfigMap, plain values, Secret references), ports and probes.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import type { z } from "zod";
import { configSchema as gatewaySchema } from "../../gateway/src/config.ts";
import { configSchema as identitySchema } from "../../services/identity/src/config.ts";
import { configSchema as meetingSchema } from "../../services/meeting/src/config.ts";
import { configSchema as webhookSchema } from "../../services/webhook/src/config.ts";

export const root = path.resolve(import.meta.dirname, "../..");
export const chartDir = path.join(root, "deploy/helm/svc");
export const dockerfile = path.join(root, "deploy/docker/Dockerfile");
/** The values files CI renders: the defaults and every file in the chart's ci/ folder. */
export const valuesFiles = [
  "(defaults)",
  "ci/production-values.yaml",
  "ci/dev-values.yaml",
  "ci/managed-kafka-values.yaml",
  "ci/local-cluster-values.yaml",
  "ci/recording-s3-values.yaml",
] as const;

/** Every process the chart runs, with the configuration schema its code parses at start. */
export const components = {
  gateway: { workspace: "gateway", schema: gatewaySchema },
  identity: { workspace: "services/identity", schema: identitySchema },
  meeting: { workspace: "services/meeting", schema: meetingSchema },
  webhook: { workspace: "services/webhook", schema: webhookSchema },
} as const;
export type Component = keyof typeof components;

// Loose shapes of the few Kubernetes fields the tests read.
export interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { path: string; port: number | string };
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  envFrom?: { configMapRef?: { name: string } }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } & Record<string, unknown> }[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
export interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: Record<string, unknown>;
  containers: Container[];
}
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec?: any; // read loosely: each test names the fields it needs
}

const execFileAsync = promisify(execFile);

/** `helm template` of the chart as release "svc" in namespace "svc", parsed into objects. */
export async function renderChart(valuesFile: (typeof valuesFiles)[number] | string, extraArgs: string[] = []): Promise<K8sObject[]> {
  const values = valuesFile === "(defaults)" ? [] : ["--values", path.join(chartDir, valuesFile)];
  const { stdout } = await execFileAsync(
    "bash",
    [path.join(root, "scripts/helm"), "template", "svc", chartDir, "--namespace", "svc", "--kube-version", "1.29.0", ...values, ...extraArgs],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  );
  return parseAllDocuments(stdout)
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null);
}

export function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`the chart renders no ${kind} ${name}`);
  return found;
}

export const podSpecOf = (workload: K8sObject): PodSpec => (workload.kind === "Pod" ? workload.spec : workload.spec.template.spec) as PodSpec;

export interface EnvEntry {
  /** Where the value comes from: a ConfigMap via envFrom, a plain `value`, or a Secret reference. */
  source: "configMap" | "value" | "secret" | "other";
  value?: string;
  secret?: { name: string; key: string };
}

/** Everything the chart puts in a container's environment, by variable name. */
export function environmentOf(objects: K8sObject[], container: Container): Map<string, EnvEntry> {
  const env = new Map<string, EnvEntry>();
  for (const from of container.envFrom ?? []) {
    if (!from.configMapRef) throw new Error(`${container.name}: envFrom other than a ConfigMap`);
    for (const [name, value] of Object.entries(find(objects, "ConfigMap", from.configMapRef.name).data ?? {})) {
      env.set(name, { source: "configMap", value });
    }
  }
  for (const entry of container.env ?? []) {
    if (env.has(entry.name)) throw new Error(`${container.name}: ${entry.name} is set twice`);
    if (entry.value !== undefined) env.set(entry.name, { source: "value", value: entry.value });
    else if (entry.valueFrom?.secretKeyRef) env.set(entry.name, { source: "secret", secret: entry.valueFrom.secretKeyRef });
    else env.set(entry.name, { source: "other" });
  }
  return env;
}

/** The object schema under a configuration schema's refinements and transforms. */
export function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  let current: unknown = schema;
  for (let depth = 0; depth < 10; depth++) {
    if (current && typeof current === "object" && "shape" in current) return (current as { shape: Record<string, z.ZodType> }).shape;
    if (current && typeof current === "object" && "in" in current) current = (current as { in: unknown }).in;
    else break;
  }
  throw new Error("not an object schema (or a pipe from one)");
}

/** Variables a process reads, and the ones it cannot start without. */
export function variablesOf(schema: z.ZodType) {
  const shape = objectShape(schema);
  const reads = Object.keys(shape).sort();
  const required = reads.filter((name) => !shape[name]!.safeParse(undefined).success);
  return { reads, required };
}

/** The environment the image itself sets (Dockerfile ENV lines of the final stage). */
export function imageEnvironment(): Record<string, string> {
  const text = readFileSync(dockerfile, "utf8");
  const finalStage = text.slice(text.lastIndexOf("\nFROM "));
  const env: Record<string, string> = {};
  for (const match of finalStage.matchAll(/^ENV\s+([A-Z_][A-Z0-9_]*)=(\S+)\s*$/gm)) env[match[1]!] = match[2]!;
  return env;
}

/**
 * Credentials the chart passes, each only through a Secret reference; the sample values let the
 * process's schema parse the rendered configuration. A new credential needs a sample here.
 */
export const credentialSamples: Record<string, string> = {
  DATABASE_URL: "postgres://svc:sample-password@postgres.example:5432/svc",
  REDIS_URL: "redis://:sample-password@redis.example:6379",
  ADMIN_TOKEN: "sample-admin-token-0123456789abcdef0123456789",
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 1).toString("base64"),
  OAUTH_COOKIE_KEYS: "sample-cookie-signing-key-0123456789abcdef",
  CREDENTIAL_CACHE_KEY: "sample-credential-cache-key-0123456789abcdef",
  LIVEKIT_API_KEY: "sample-livekit-key",
  LIVEKIT_API_SECRET: "sample-livekit-secret-0123456789abcdefghij",
  KAFKA_SASL_USERNAME: "sample-kafka-user",
  KAFKA_SASL_PASSWORD: "sample-kafka-password",
  RECORDING_LINK_SECRET: "sample-recording-link-secret-0123456789abcdef",
  RECORDING_S3_ACCESS_KEY_ID: "sample-s3-access-key-id",
  RECORDING_S3_SECRET_ACCESS_KEY: "sample-s3-secret-access-key",
  RECORDING_S3_UPLOAD_ACCESS_KEY_ID: "sample-s3-upload-access-key-id",
  RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY: "sample-s3-upload-secret-access-key",
};

/**
 * Credentials whose feature is off without them (Kafka without SASL; in production, recordings
 * without download links, or without S3 storage), so the chart passes them only when the feature
 * is configured (from a Secret, like every credential).
 */
export const optionalCredentials = new Set([
  "KAFKA_SASL_USERNAME",
  "KAFKA_SASL_PASSWORD",
  "RECORDING_LINK_SECRET",
  "RECORDING_S3_ACCESS_KEY_ID",
  "RECORDING_S3_SECRET_ACCESS_KEY",
  "RECORDING_S3_UPLOAD_ACCESS_KEY_ID",
  "RECORDING_S3_UPLOAD_SECRET_ACCESS_KEY",
]);

/** A credential: never a plain value (REDIS_URL may be one when it carries no password). */
export const isCredential = (name: string) => (name in credentialSamples && name !== "REDIS_URL") || /(SECRET|TOKEN|PASSWORD|_KEYS?)$/.test(name);

/** The environment a container starts with: the image's ENV, the chart's values, samples for Secret references. */
export function startEnvironment(objects: K8sObject[], container: Container, secrets: Record<string, string> = credentialSamples): Record<string, string> {
  const env: Record<string, string> = { ...imageEnvironment() };
  for (const [name, entry] of environmentOf(objects, container)) {
    if (entry.source === "secret") {
      const value = secrets[name];
      if (value === undefined) throw new Error(`${name} comes from a Secret but the test has no sample value for it`);
      env[name] = value;
    } else if (entry.value !== undefined) {
      env[name] = entry.value;
    }
  }
  return env;
}
