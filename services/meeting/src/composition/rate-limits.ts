import { createRateLimiter, type RateLimiterOptions } from "@svc/platform";

/** Makes a limiter of `points` per `durationSeconds` (default a minute), its buckets named `name`. */
export type RateLimits = (name: string, points: number, durationSeconds?: number) => ReturnType<typeof createRateLimiter>;

/** The service's limiters, all on the same Redis (shared by every replica) and key prefix. */
export const rateLimitsOn =
  (redis: RateLimiterOptions["redis"], keyPrefix: string): RateLimits =>
  (name, points, durationSeconds = 60) =>
    createRateLimiter({ name, points, durationSeconds, redis, keyPrefix });
