import { z } from "zod";
import {
  baseEnvSchema,
  booleanVariable,
  credentialCacheKeyDefaults,
  defaultAddresses,
  port,
  refuseDevelopmentDefaults,
  serviceUrl,
  type DevelopmentDefault,
} from "@svc/platform";
import { checkKafkaSecurity, kafkaSecurityEnv } from "@svc/platform/events";
import { DEFAULT_PENDING_CAPS } from "./delivery/pending-caps.ts";

/** The production retry schedule (docs/decisions/0011-webhook-retries-and-disabling.md): seconds before attempt 1, 2, ... 8. */
export const DEFAULT_RETRY_SCHEDULE = "0,5,300,1800,7200,18000,36000,36000";

/**
 * A well-known development key so `npm start` works with nothing configured. It is public (it is
 * in this file), so secrets encrypted with it are not protected: main.ts warns loudly when it is
 * used, and the configuration refuses it in production and on a non-loopback HOST.
 */
export const DEVELOPMENT_SECRET_KEY = Buffer.alloc(32, "svc-development-only-webhook-key!").toString("base64");

const positiveInt = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);

/** Comma-separated non-negative seconds; fractions are allowed so tests can compress the schedule. */
const retrySchedule = z
  .string()
  .default(DEFAULT_RETRY_SCHEDULE)
  .transform((value, context) => {
    const parts = value.split(",").map((part) => part.trim());
    const seconds = parts.map(Number);
    if (parts.length === 0 || parts.length > 50 || parts.some((part) => part === "") || seconds.some((n) => !Number.isFinite(n) || n < 0)) {
      context.addIssue({ code: "custom", message: "must be 1 to 50 comma-separated non-negative numbers of seconds, for example 0,5,300" });
      return z.NEVER;
    }
    return seconds;
  });

const secretKey = z
  .string()
  .optional()
  .transform((value, context) => {
    if (value === undefined || value === "") return { key: Buffer.from(DEVELOPMENT_SECRET_KEY, "base64"), isDevelopmentDefault: true };
    const key = Buffer.from(value, "base64");
    if (key.length !== 32 || key.toString("base64") !== value) {
      context.addIssue({ code: "custom", message: "must be the base64 of exactly 32 bytes (openssl rand -base64 32)" });
      return z.NEVER;
    }
    return { key, isDevelopmentDefault: false };
  });

export const configSchema = baseEnvSchema
  .extend({
    /** TLS and SASL towards the brokers (KAFKA_TLS, KAFKA_SASL_*: platform events/kafka-security.ts). */
    ...kafkaSecurityEnv,
    /** Port of the service's gRPC, gRPC-Web and Connect server (h2c), with health and reflection. */
    GRPC_PORT: port(defaultAddresses.webhook),
    /** Port of the same services over gRPC only, served by grpc-js, with health: the one the gateway calls, cheaper per call than GRPC_PORT (docs/decisions/0018). */
    INTERNAL_GRPC_PORT: port(defaultAddresses.webhookInternal),
    /** Where the identity service is (credential verification). */
    IDENTITY_URL: serviceUrl(defaultAddresses.identity),
    /** `production` refuses the development defaults (the image sets it), as a non-loopback HOST does. */
    NODE_ENV: z.string().default("development"),
    /**
     * Base64 of 32 bytes: the AES-256-GCM key that encrypts signing secrets at rest
     * (`openssl rand -base64 32`). Unset: a public development key, with a warning; refused with
     * NODE_ENV=production or a non-loopback HOST.
     */
    WEBHOOK_SECRET_KEY: secretKey,
    /** Allow targets on loopback, private, link-local, CGNAT and reserved addresses (tests, development). */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanVariable(false),
    /** Allow plain http:// targets (tests, development). */
    WEBHOOK_ALLOW_INSECURE: booleanVariable(false),
    /** A delivery succeeds only with a 2xx response complete within this time. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
    /** Seconds before attempts 1..n, comma-separated (fractions allowed; tests compress it); each delay gets ±20 % jitter. */
    WEBHOOK_RETRY_SCHEDULE: retrySchedule,
    /** Least delay before the next attempt after a timeout or a 429 (production: 60 s). */
    WEBHOOK_THROTTLED_MIN_DELAY_SECONDS: z.coerce.number().min(0).max(86_400).default(60),
    /** An endpoint failing without a single success for this long is disabled (default 5 days). */
    WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce
      .number()
      .min(0)
      .default(5 * 24 * 3600),
    /** Attempts in flight at once in this process, over all endpoints. */
    WEBHOOK_CONCURRENCY: positiveInt(256, 10_000),
    /** Attempts in flight at once to one subscription, so a slow endpoint cannot starve the others. */
    WEBHOOK_PER_ENDPOINT_CONCURRENCY: positiveInt(32, 1_000),
    /** Attempts in flight at once to one organization's endpoints, so one tenant cannot take every slot. */
    WEBHOOK_PER_ORG_CONCURRENCY: positiveInt(64, 10_000),
    /** Timeouts in a row after which an endpoint's circuit opens (no attempts to it for a while). */
    WEBHOOK_CIRCUIT_BREAKER_TIMEOUTS: positiveInt(5, 1_000),
    /** How long an open circuit stays open before one probe attempt is let through. */
    WEBHOOK_CIRCUIT_BREAKER_OPEN_SECONDS: z.coerce.number().min(0.1).max(86_400).default(60),
    /** Pending deliveries an endpoint may have; beyond it new ones are stored as failed (not sent). */
    WEBHOOK_MAX_PENDING_PER_ENDPOINT: positiveInt(DEFAULT_PENDING_CAPS.perEndpoint, 10_000_000),
    /** The same over all of an organization's endpoints. */
    WEBHOOK_MAX_PENDING_PER_ORG: positiveInt(DEFAULT_PENDING_CAPS.perOrganization, 10_000_000),
    /** Test events (POST /webhook/:id/test) per subscription per minute. */
    WEBHOOK_TEST_EVENTS_PER_MINUTE: positiveInt(10, 10_000),
    /** Finished deliveries, their attempts and events without deliveries are deleted after this many days. */
    WEBHOOK_RETENTION_DAYS: z.coerce.number().min(1).max(3_650).default(30),
    /** Longest the dispatcher sleeps without a wake-up before it looks for due retries. */
    WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
    /** Subscriptions one organization may have. */
    WEBHOOK_MAX_SUBSCRIPTIONS_PER_ORG: positiveInt(100, 10_000),
    /** After a secret rotation the replaced secret keeps signing this long (default 24 h; 0: not at all). */
    WEBHOOK_SECRET_ROTATION_GRACE_SECONDS: z.coerce
      .number()
      .min(0)
      .max(7 * 24 * 3600)
      .default(24 * 3600),
  })
  .superRefine((config, context) => {
    checkKafkaSecurity(config, context);
    const defaults: DevelopmentDefault[] = [];
    if (config.WEBHOOK_SECRET_KEY.isDevelopmentDefault) defaults.push({ variable: "WEBHOOK_SECRET_KEY", howToSet: "openssl rand -base64 32" });
    refuseDevelopmentDefaults(config, [...defaults, ...credentialCacheKeyDefaults(config)], context);
  });

export type Config = z.output<typeof configSchema>;
