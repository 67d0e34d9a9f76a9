import type { Redis } from "ioredis";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { createRateLimiter, type Logger } from "@svc/platform";

/**
 * The per-endpoint delivery rate limit (a subscription's `rateLimitPerSecond`), counted in Redis
 * so every dispatcher replica shares one budget per endpoint (rate-limiter-flexible, one-second
 * windows), with the platform's in-process insurance limiter while Redis is unreachable and as
 * the whole mechanism in the embedded mode (one process). It also remembers which endpoints are
 * out of turns, so the dispatcher does not claim their deliveries until their next window.
 */
export interface EndpointRateLimiter {
  /** Takes a turn for one delivery: 0 when it may be sent now, otherwise milliseconds until the next turn. */
  take(subscriptionId: string, perSecond: number): Promise<number>;
  /** Endpoints out of turns right now (claims skip them). */
  pausedEndpoints(): string[];
}

export function createEndpointRateLimiter(options: { redis?: Redis | undefined; keyPrefix: string; logger: Logger }): EndpointRateLimiter {
  // One limiter per distinct limit: rate-limiter-flexible fixes the points per limiter.
  const limiters = new Map<number, RateLimiterAbstract>();
  const pausedUntil = new Map<string, number>();
  const limiterFor = (perSecond: number) => {
    let limiter = limiters.get(perSecond);
    if (!limiter) {
      limiter = createRateLimiter({
        name: `webhook-endpoint-rate-${perSecond}:`,
        points: perSecond,
        durationSeconds: 1,
        redis: options.redis,
        keyPrefix: options.keyPrefix,
      });
      limiters.set(perSecond, limiter);
    }
    return limiter;
  };

  return {
    async take(subscriptionId, perSecond) {
      try {
        await limiterFor(perSecond).consume(subscriptionId);
        return 0;
      } catch (refusal) {
        if (!(refusal instanceof RateLimiterRes)) {
          // Neither Redis nor the insurance limiter answered: send rather than hold deliveries back indefinitely.
          options.logger.warn({ err: refusal, subscriptionId }, "endpoint rate limit unavailable; sending without it");
          return 0;
        }
        const waitMs = Math.max(1, refusal.msBeforeNext);
        pausedUntil.set(subscriptionId, Date.now() + waitMs);
        return waitMs;
      }
    },
    pausedEndpoints() {
      const now = Date.now();
      for (const [id, until] of pausedUntil) if (until <= now) pausedUntil.delete(id);
      return [...pausedUntil.keys()];
    },
  };
}
