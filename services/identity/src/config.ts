import { randomBytes } from "node:crypto";
import { z } from "zod";
import {
  baseEnvSchema,
  booleanVariable,
  credentialCacheKeyDefaults,
  defaultAddresses,
  isWellFormedToken,
  port,
  publicUrlVariable,
  refuseDevelopmentDefaults,
  type DevelopmentDefault,
} from "@svc/platform";
import { DEVELOPMENT_ADMIN_TOKEN } from "./admin/admin-token.ts";

/** Shorter tokens are refused: the admin API creates organizations, users and keys. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

export const configSchema = baseEnvSchema
  .extend({
    /** Port of the service's gRPC, gRPC-Web and Connect server (h2c), with health and reflection. */
    GRPC_PORT: port(defaultAddresses.identity),
    /** `production` refuses the development defaults (the image sets it), as a non-loopback HOST does. */
    NODE_ENV: z.string().default("development"),
    /**
     * Bearer token of IdentityAdminService (the CLI's SVC_ADMIN_TOKEN), at least 32 characters
     * (`openssl rand -hex 32`). Unset: a development token, with a warning; refused with
     * NODE_ENV=production or a non-loopback HOST.
     */
    ADMIN_TOKEN: z
      .string()
      .min(ADMIN_TOKEN_MIN_LENGTH, `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters (openssl rand -hex 32)`)
      // It travels as a Bearer token, so it must be one (RFC 6750 b64token, at most 512 characters).
      .refine(isWellFormedToken, "must be letters, digits and - . _ ~ + / (then = padding), at most 512 characters (openssl rand -hex 32)")
      .optional(),
    /**
     * Port of IdentityAdminService alone, apart from GRPC_PORT (which every service calls), so a
     * network policy can keep everyone but operators away from the admin API.
     */
    ADMIN_PORT: port(defaultAddresses.identityAdmin),
    /** How long a verified credential is cached (Redis, or in-process without REDIS_URL), never past its expiry. */
    CREDENTIAL_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(60).default(60),
    /** How often recorded API-key uses are written to the database, in one batch. */
    LAST_USED_FLUSH_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(10_000),
    /** HTTP port of the OAuth 2.0 authorization server; the gateway forwards the OAuth paths to it. */
    OAUTH_PORT: port(defaultAddresses.identityOAuth),
    /** The externally visible origin (the gateway's): the OAuth issuer and base of OAuth URLs. */
    PUBLIC_URL: publicUrlVariable(`http://localhost:${defaultAddresses.gateway}`),
    /** Whether anyone may create an organization and become its admin at /dashboard/sign-up (`npm start` with the embedded database sets `true`). */
    SIGNUP_ENABLED: booleanVariable(false),
    /** A dashboard session ends after this long without a request. */
    SESSION_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(60).max(86_400).default(1800),
    /** A dashboard session ends this long after sign-in, whatever the activity. */
    SESSION_ABSOLUTE_TIMEOUT_SECONDS: z.coerce
      .number()
      .int()
      .min(300)
      .max(30 * 86_400)
      .default(43_200),
    /** Failed sign-ins (OAuth page and dashboard together) per e-mail address before backoff starts. */
    SIGNIN_MAX_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(10),
    /** Failed sign-ins per client address (as the gateway resolves it) before backoff starts. */
    SIGNIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(100),
    /** How long failures are remembered, from the first one (a success forgets an account's). */
    SIGNIN_THROTTLE_WINDOW_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(7 * 86_400)
      .default(86_400),
    /** The first wait once the allowance is used up; it doubles with every further failure, up to the maximum. */
    SIGNIN_BACKOFF_BASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
    /** The longest backoff period. */
    SIGNIN_BACKOFF_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
    /** How long an OAuth authorization lasts, however often its refresh tokens are rotated (default 1 year). */
    OAUTH_GRANT_LIFETIME_SECONDS: z.coerce
      .number()
      .int()
      .min(3600)
      .max(5 * 365 * 86_400)
      .default(365 * 86_400),
    /**
     * Comma-separated keys (each at least 32 characters) signing the OAuth sign-in cookies; the first
     * signs. Unset: a random key per process, with a warning (sign-ins end on restart and are not
     * shared between replicas); refused with NODE_ENV=production or a non-loopback HOST.
     */
    OAUTH_COOKIE_KEYS: z
      .string()
      .refine((value) => value.split(",").every((key) => key.trim().length >= 32), { message: "each key must be at least 32 characters" })
      .optional(),
  })
  .superRefine((env, context) => {
    const defaults: DevelopmentDefault[] = [];
    if (env.ADMIN_TOKEN === undefined) defaults.push({ variable: "ADMIN_TOKEN", howToSet: "openssl rand -hex 32" });
    // Not public, but random per process: sign-ins would break on every restart and between replicas.
    if (env.OAUTH_COOKIE_KEYS === undefined) defaults.push({ variable: "OAUTH_COOKIE_KEYS", howToSet: "the same for every replica: openssl rand -hex 32" });
    refuseDevelopmentDefaults(env, [...defaults, ...credentialCacheKeyDefaults(env)], context);
  })
  .transform(({ ADMIN_TOKEN, OAUTH_COOKIE_KEYS, ...env }) => ({
    ...env,
    ADMIN_TOKEN: ADMIN_TOKEN ?? DEVELOPMENT_ADMIN_TOKEN,
    usingDevelopmentAdminToken: ADMIN_TOKEN === undefined,
    oauthCookieKeys: OAUTH_COOKIE_KEYS?.split(",").map((key) => key.trim()) ?? [randomBytes(32).toString("base64url")],
    usingEphemeralOAuthCookieKeys: OAUTH_COOKIE_KEYS === undefined,
  }));

export type Config = z.output<typeof configSchema>;
