import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from "rate-limiter-flexible";

export interface RateLimiterOptions {
  /** Names the buckets (part of every key). */
  name: string;
  points: number;
  durationSeconds: number;
  /** Shared buckets for every replica; without it each process counts on its own. */
  redis?: Redis | undefined;
  keyPrefix: string;
}

/**
 * The one way a process builds a rate limiter: Redis-backed when Redis is configured, with an
 * in-process limiter as insurance while Redis is unreachable, so a Redis outage neither stops
 * the service nor lifts the limit.
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiterAbstract {
  const limits = { points: options.points, duration: options.durationSeconds };
  const memory = new RateLimiterMemory({ ...limits, keyPrefix: options.name });
  if (!options.redis) return memory;
  return new RateLimiterRedis({
    ...limits,
    storeClient: options.redis,
    keyPrefix: `${options.keyPrefix}${options.name}`,
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}
