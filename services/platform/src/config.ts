import { z } from "zod";
import { credentialCacheKeyVariable } from "./credentials/credential-cache-key.ts";
import { isLoopbackAddress } from "./development-defaults.ts";
import { DEFAULT_SHUTDOWN_GRACE_MS } from "./lifecycle.ts";
import { shutdownDrainSecondsVariable } from "./shutdown-drain.ts";

/** A true/false environment variable ("1" and "0" are accepted too). */
export const booleanVariable = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0"], { message: "must be true or false" })
    .default(fallback ? "true" : "false")
    .transform((value) => value === "true" || value === "1");

/**
 * Environment variables every service reads. Services extend this with their own.
 * Configuration is environment variables only, parsed once at start.
 */
export const baseEnvSchema = z.object({
  /** Postgres URL; each service uses its own schema in it. `npm start` starts an embedded Postgres and sets it. */
  DATABASE_URL: z.string().refine((value) => /^postgres(ql)?:\/\/[^\s]+$/.test(value) && URL.canParse(value), {
    message: "must be a postgres:// URL, for example postgres://svc:svc@127.0.0.1:5432/svc",
  }),
  /** Connections each process may open to Postgres; unset, each service picks its own (identity 10, meeting 20, webhook 20). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).optional(),
  /**
   * Prepare each statement with parameters once per connection (see createPool): Postgres then only
   * binds and executes it. `false` only behind a pooler that cannot keep prepared statements
   * (PgBouncer before 1.21 in transaction mode; 1.21 and later need `max_prepared_statements` set).
   */
  DATABASE_PREPARED_STATEMENTS: booleanVariable(true),
  /** Redis URL (shared verification cache, rate limits, sign-in counters); unset: in-process fallbacks. */
  REDIS_URL: z
    .string()
    .refine((value) => /^rediss?:\/\//.test(value) && URL.canParse(value), {
      message: "must be a redis:// URL",
    })
    .optional(),
  /** `host:port[,host:port]` of the Kafka brokers; unset: a Postgres-backed event bus with the same guarantees. */
  KAFKA_BROKERS: z
    .string()
    .regex(/^[^\s,:]+:\d+(,[^\s,:]+:\d+)*$/, "must be host:port[,host:port...]")
    .optional(),
  /**
   * HMAC key (at least 32 characters, the same in every process) authenticating the credential-cache
   * entries shared through Redis. Unset: a public development key, with a warning; required with
   * REDIS_URL and either NODE_ENV=production or a non-loopback HOST.
   */
  CREDENTIAL_CACHE_KEY: credentialCacheKeyVariable,
  /** Prefix of every Redis key this deployment writes, so several deployments can share one Redis. */
  REDIS_KEY_PREFIX: z.string().default("svc:"),
  /** Prefix of every Kafka topic and consumer group, so several deployments can share one cluster. */
  KAFKA_TOPIC_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/, "only letters, digits, '.', '_' and '-'")
    .default(""),
  /** The pino log level; `debug` adds one `rpc handled` line per RPC. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * How long a stopping process drains its work (milliseconds) before it exits anyway. Keep it below
   * the pod's terminationGracePeriodSeconds minus the preStop sleep.
   */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(100).max(600_000).default(DEFAULT_SHUTDOWN_GRACE_MS),
  /**
   * Listen address (`0.0.0.0` in containers). Any address but 127.0.0.0/8, `::1` or `localhost` refuses
   * the development defaults.
   */
  HOST: z.string().default("127.0.0.1"),
  /**
   * Port of the process's Prometheus `GET /metrics` listener (on HOST); metrics are off when unset.
   * Under `npm start` this is the gateway's, and identity, meeting and webhook take the next three.
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Seconds a stopping process keeps serving while sending its clients elsewhere (shutdown-drain.ts). */
  SHUTDOWN_DRAIN_SECONDS: shutdownDrainSecondsVariable,
});

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** Loopback addresses at which the processes find each other when nothing is configured. */
export const defaultAddresses = {
  gateway: 8080,
  identity: 50051,
  identityOAuth: 50052,
  /** Identity's administrator API (IdentityAdminService), on a port of its own. */
  identityAdmin: 50056,
  meeting: 50053,
  webhook: 50054,
  /** The meeting and webhook services' grpc-js ports, which the gateway calls (INTERNAL_GRPC_PORT). */
  meetingInternal: 50057,
  webhookInternal: 50058,
  /** The meeting service's HTTP listener for the media server's webhooks. */
  meetingMediaWebhooks: 50055,
} as const;

/**
 * PUBLIC_URL: the externally visible origin (the gateway's). The OAuth issuer, every OAuth URL and
 * the `Secure` flag of the sign-in cookies are derived from it, never from a request's Host or
 * X-Forwarded-* headers; so it must be https, except for a loopback host (local development),
 * where browsers accept plain http and nobody else can be in the middle.
 */
export const publicUrlVariable = (fallback: string) =>
  z
    .string()
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), { message: "must be an http(s):// origin" })
    .refine((value) => !URL.canParse(value) || new URL(value).protocol === "https:" || isLoopbackAddress(new URL(value).hostname), {
      message:
        "must be https:// (plain http is accepted only for a loopback host such as localhost, in development): sign-in cookies would not be Secure and OAuth URLs would be http",
    })
    .default(fallback);

export const serviceUrl = (fallbackPort: number) =>
  z
    .string()
    .refine((value) => /^https?:\/\//.test(value) && URL.canParse(value), { message: "must be an http(s):// URL" })
    .default(`http://127.0.0.1:${fallbackPort}`);

/**
 * Where a service is for a caller that may use its grpc-js port: `grpc://host:port` (the service's
 * INTERNAL_GRPC_PORT, the faster hop: decision 0018) or `http(s)://host:port` (its GRPC_PORT, Connect).
 */
export const fastServiceUrl = (fallbackPort: number) =>
  z
    .string()
    .refine((value) => /^(https?|grpc):\/\/[^/]+\/?$/.test(value) && URL.canParse(value), {
      message: "must be a grpc://host:port URL (the service's INTERNAL_GRPC_PORT) or an http(s):// URL (its GRPC_PORT)",
    })
    .default(`grpc://127.0.0.1:${fallbackPort}`);

export class ConfigError extends Error {}

/**
 * Parses `env` with `schema`. On failure it throws a ConfigError whose message names every bad
 * variable on one line, so `main` can print it and exit non-zero.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "(environment)"}: ${issue.message}`);
  throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
}

/** Prints a one-line message naming the bad variable and stops the process. */
export function loadConfigOrExit<S extends z.ZodType>(service: string, schema: S): z.output<S> {
  try {
    return parseConfig(schema);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${service}: ${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
