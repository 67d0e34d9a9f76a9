import { z } from "zod";
import {
  baseEnvSchema,
  credentialCacheKeyDefaults,
  defaultAddresses,
  fastServiceUrl,
  port,
  publicUrlVariable,
  refuseDevelopmentDefaults,
  serviceUrl,
} from "@svc/platform";

export const configSchema = z
  .object({
    /** The gateway's HTTP port: the public REST API, the OAuth paths and the pages. */
    PORT: port(defaultAddresses.gateway),
    HOST: baseEnvSchema.shape.HOST,
    METRICS_PORT: baseEnvSchema.shape.METRICS_PORT,
    SHUTDOWN_GRACE_MS: baseEnvSchema.shape.SHUTDOWN_GRACE_MS,
    SHUTDOWN_DRAIN_SECONDS: baseEnvSchema.shape.SHUTDOWN_DRAIN_SECONDS,
    /** The externally visible origin, used in join URLs and OAuth redirects. */
    PUBLIC_URL: publicUrlVariable(`http://localhost:${defaultAddresses.gateway}`).transform((value) => value.replace(/\/+$/, "")),
    /**
     * The LiveKit server as browsers reach it (ws:// or wss://): the meeting page's CSP allows
     * connections to it. The join grant names the same server; keep the two in agreement.
     */
    LIVEKIT_PUBLIC_URL: z
      .string()
      .refine(
        (value) => {
          if (!URL.canParse(value)) return false;
          const url = new URL(value);
          return /^wss?:$/.test(url.protocol) && !url.username && !url.password && !url.search && !url.hash;
        },
        { message: "must be a ws:// or wss:// URL without credentials, query or fragment" },
      )
      .default("ws://127.0.0.1:7880")
      .transform((value) => value.replace(/\/+$/, "")),
    /** Where the identity service is. */
    IDENTITY_URL: serviceUrl(defaultAddresses.identity),
    /** Where the gateway forwards the OAuth paths: identity's OAuth 2.0 listener (OAUTH_PORT). */
    IDENTITY_OAUTH_URL: serviceUrl(defaultAddresses.identityOAuth),
    /** Where the meeting service is: its INTERNAL_GRPC_PORT as `grpc://host:port` (or its GRPC_PORT as `http://host:port`). */
    MEETING_URL: fastServiceUrl(defaultAddresses.meetingInternal),
    /** Where the webhook service is: its INTERNAL_GRPC_PORT as `grpc://host:port` (or its GRPC_PORT as `http://host:port`). */
    WEBHOOK_URL: fastServiceUrl(defaultAddresses.webhookInternal),
    /** Number of reverse proxies in front of the gateway whose X-Forwarded-For is trusted for the client address (Express `trust proxy`). */
    TRUST_PROXY_HOPS: z.coerce.number().int().min(0).default(0),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /** Rate-limit buckets live in Redis when set, so every gateway replica counts together. */
    REDIS_URL: baseEnvSchema.shape.REDIS_URL,
    REDIS_KEY_PREFIX: baseEnvSchema.shape.REDIS_KEY_PREFIX,
    /** Authenticates the credential-cache entries it reads from Redis (identity writes them). */
    CREDENTIAL_CACHE_KEY: baseEnvSchema.shape.CREDENTIAL_CACHE_KEY,
    /** `production` refuses the development defaults (the image sets it), as a non-loopback HOST does. */
    NODE_ENV: z.string().default("development"),
    /** Requests per second allowed per credential (or per client address without one). */
    RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(50),
  })
  .superRefine((env, context) => refuseDevelopmentDefaults(env, credentialCacheKeyDefaults(env), context));

export type Config = z.output<typeof configSchema>;
