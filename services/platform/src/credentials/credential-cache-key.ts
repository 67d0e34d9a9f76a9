import { z } from "zod";
import type { DevelopmentDefault } from "../development-defaults.ts";
import type { Logger } from "../logger.ts";

/**
 * A well-known key so `npm start` and the tests work with nothing configured. It is public (it is
 * in this file): with it, anyone who can write Redis can still forge cache entries. Each process
 * warns loudly when it uses it with Redis, and the configuration refuses it in production and on a
 * non-loopback address (refuseDevelopmentDefaults).
 */
export const DEVELOPMENT_CREDENTIAL_CACHE_KEY = "svc-development-only-credential-cache-key-PUBLIC";

/** CREDENTIAL_CACHE_KEY: the HMAC key authenticating shared credential-cache entries. */
export const credentialCacheKeyVariable = z.string().min(32, "must be at least 32 characters (openssl rand -hex 32)").optional();

/** The development key is in use only by a process that shares a Redis (without one there is no shared entry to forge). */
export function credentialCacheKeyDefaults(env: { REDIS_URL?: string | undefined; CREDENTIAL_CACHE_KEY?: string | undefined }): DevelopmentDefault[] {
  return env.REDIS_URL !== undefined && env.CREDENTIAL_CACHE_KEY === undefined
    ? [{ variable: "CREDENTIAL_CACHE_KEY", howToSet: "the same for every process, with REDIS_URL: openssl rand -hex 32" }]
    : [];
}

/** The configured key, or the public development key with a loud warning. */
export function credentialCacheKeyOf(env: { CREDENTIAL_CACHE_KEY?: string | undefined }, logger: Logger): string {
  if (env.CREDENTIAL_CACHE_KEY !== undefined) return env.CREDENTIAL_CACHE_KEY;
  logger.warn(
    "DEVELOPMENT DEFAULT IN USE: CREDENTIAL_CACHE_KEY is unset, so shared credential-cache entries in Redis are authenticated with a PUBLIC development key: " +
      "anyone who can write this Redis can mint a credential. Set CREDENTIAL_CACHE_KEY (the same value for every process) for anything but local development.",
  );
  return DEVELOPMENT_CREDENTIAL_CACHE_KEY;
}
