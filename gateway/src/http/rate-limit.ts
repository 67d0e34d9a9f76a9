import type { Request, RequestHandler, Response } from "express";
import type { Redis } from "ioredis";
import { RateLimiterRes } from "rate-limiter-flexible";
import { bearerToken, clientAddressKey, createRateLimiter, hashToken, type CredentialCache, type Logger } from "@svc/platform";
import { HttpError } from "./errors.ts";
import "./locals.ts";

export interface RateLimitOptions {
  requestsPerSecond: number;
  /** Shared buckets for every gateway replica; without it each process counts on its own. */
  redis?: Redis | undefined;
  keyPrefix: string;
  /**
   * identity's shared, authenticated verification cache: a credential found valid there has a
   * bucket of its own. Without it (no Redis) every request is counted per client address.
   */
  credentialCache?: CredentialCache | undefined;
  logger: Logger;
}

/**
 * Limits requests per verified credential or, for everything else, per client address (req.ip,
 * which honours only the configured number of trusted proxies). Only a credential identity has
 * verified (a valid entry in its shared cache, keyed by the token's SHA-256, so the token itself
 * is never a Redis key) earns its own bucket: a made-up Authorization header per request is
 * counted against the sender's address, so it can neither escape the limit nor make each request
 * a database query. A cold valid credential spends one request of its address's bucket until its
 * first verification fills the cache.
 */
export function rateLimit(options: RateLimitOptions): RequestHandler {
  const limiter = createRateLimiter({
    name: "ratelimit",
    points: options.requestsPerSecond,
    durationSeconds: 1,
    redis: options.redis,
    keyPrefix: options.keyPrefix,
  });

  /** The bucket of a verified credential; what the cache held is kept for the request (see CacheRead). */
  const verifiedCredentialKey = async (req: Request, res: Response): Promise<string | undefined> => {
    const token = bearerToken(req.get("authorization"));
    if (!token || !options.credentialCache) return undefined;
    const tokenHash = hashToken(token);
    const entry = await options.credentialCache.get(tokenHash).catch(() => undefined);
    res.locals.credentialCacheRead = { entry };
    const verified = typeof entry === "object" && (entry.expiresAt === undefined || entry.expiresAt > Date.now());
    return verified ? `cred:${tokenHash}` : undefined;
  };

  return async (req, res, next) => {
    // An IPv6 client is counted on its /64 (clientAddressKey), not per address.
    const key = (await verifiedCredentialKey(req, res)) ?? `ip:${clientAddressKey(req.ip ?? "unknown")}`;
    try {
      const state = await limiter.consume(key);
      res.set("RateLimit-Limit", String(options.requestsPerSecond));
      res.set("RateLimit-Remaining", String(state.remainingPoints));
      next();
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        return next(new HttpError(429, "Too many requests", { "Retry-After": String(retryAfter) }));
      }
      // The insurance limiter makes this unreachable in practice; never turn a limiter fault into an outage.
      options.logger.warn({ err: rejection }, "rate limiter failed; request let through");
      next();
    }
  };
}
