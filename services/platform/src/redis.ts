import { Redis } from "ioredis";
import type { Logger } from "./logger.ts";

/**
 * The one way a process connects to Redis. Commands fail fast while Redis is unreachable (no
 * offline queue, one retry, 1 s timeout), because every use here has a correct fallback: the
 * database for credentials, in-process buckets for rate limits. Waits up to 5 s for the first
 * connection so a normal start begins warm, but never refuses to start without Redis.
 */
export async function connectRedis(url: string, logger: Logger): Promise<Redis> {
  // Auto-pipelining sends the commands issued in one event-loop tick as one write: under load the
  // rate limiter's and the credential cache's commands of many requests share a round trip.
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000, enableAutoPipelining: true });
  redis.on("error", (error: Error) => logger.warn({ error: error.message }, "redis connection problem"));
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      logger.warn("redis is not reachable yet; using the fallbacks until it is");
      resolve();
    }, 5_000);
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return redis;
}
