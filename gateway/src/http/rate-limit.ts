import { createHash } from "node:crypto";
import type { RequestHandler } from "express";
import type { Redis } from "ioredis";
import { RateLimiterRes } from "rate-limiter-flexible";
import { createRateLimiter, type Logger } from "@svc/platform";
import { HttpError } from "./errors.ts";

export interface RateLimitOptions {
  requestsPerSecond: number;
  /** Shared buckets for every gateway replica; without it each process counts on its own. */
  redis?: Redis;
  keyPrefix: string;
  logger: Logger;
}

/**
 * Limits requests per credential (the SHA-256 of the Authorization header, so the token itself
 * is never a Redis key) or, without one, per client address, in buckets shared through Redis
 * when it is configured (see `createRateLimiter`).
 */
export function rateLimit(options: RateLimitOptions): RequestHandler {
  const limiter = createRateLimiter({ name: "ratelimit", points: options.requestsPerSecond, durationSeconds: 1, redis: options.redis, keyPrefix: options.keyPrefix });
  return async (req, res, next) => {
    const authorization = req.get("authorization");
    const key = authorization ? `cred:${createHash("sha256").update(authorization).digest("hex")}` : `ip:${req.ip ?? "unknown"}`;
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
