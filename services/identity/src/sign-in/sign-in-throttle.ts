import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Logger } from "@svc/platform";

export interface SignInThrottleOptions {
  /** Failed attempts allowed per account (e-mail address, whether or not it exists) per window. */
  maxFailuresPerAccount: number;
  /** Failed attempts allowed per client address per window. */
  maxFailuresPerAddress: number;
  /** The window, and how long a key stays blocked once it went over. */
  windowSeconds: number;
  /** Shared counters for every identity replica; in-process without it (and while Redis is down). */
  redis?: Redis | undefined;
  keyPrefix: string;
  logger: Logger;
}

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Throttles password guessing, for the OAuth sign-in page and the dashboard alike: failed
 * attempts are counted per account and per client address, and once either goes over its
 * allowance every attempt for that account (from anywhere) or from that address is refused,
 * before the password is even checked, until the block ends. The account key is the SHA-256 of
 * the normalised e-mail address, so an address without an account is throttled exactly like
 * one with an account (no difference to observe) and no address is ever a Redis key.
 */
export interface SignInThrottle {
  check(email: string, clientAddress: string): Promise<ThrottleDecision>;
  recordFailure(email: string, clientAddress: string): Promise<void>;
  recordSuccess(email: string): Promise<void>;
}

export function createSignInThrottle(options: SignInThrottleOptions): SignInThrottle {
  const limiter = (name: string, points: number): RateLimiterAbstract => {
    const limits = { points, duration: options.windowSeconds, blockDuration: options.windowSeconds };
    const memory = new RateLimiterMemory({ ...limits, keyPrefix: `signin-${name}` });
    return options.redis
      ? new RateLimiterRedis({ ...limits, storeClient: options.redis, keyPrefix: `${options.keyPrefix}signin:${name}`, rejectIfRedisNotReady: true, insuranceLimiter: memory })
      : memory;
  };
  const accounts = limiter("account", options.maxFailuresPerAccount);
  const addresses = limiter("address", options.maxFailuresPerAddress);
  const accountKey = (email: string) => createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
  const addressKey = (clientAddress: string) => clientAddress || "unknown";

  /** Seconds until the key may try again, or 0 when it is not over its allowance. */
  const waitOf = async (rateLimiter: RateLimiterAbstract, points: number, key: string) => {
    const state = await rateLimiter.get(key).catch((error: unknown) => {
      options.logger.warn({ err: error }, "sign-in throttle read failed; counting in-process");
      return null;
    });
    if (!state || state.consumedPoints < points) return 0;
    return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  };

  return {
    async check(email, clientAddress) {
      const account = accountKey(email);
      const [accountWait, addressWait] = await Promise.all([
        waitOf(accounts, options.maxFailuresPerAccount, account),
        waitOf(addresses, options.maxFailuresPerAddress, addressKey(clientAddress)),
      ]);
      const retryAfterSeconds = Math.max(accountWait, addressWait);
      if (retryAfterSeconds === 0) return { allowed: true };
      // The account hash (a prefix), never the address typed, so the log holds no e-mail address.
      options.logger.warn(
        { account: account.slice(0, 16), clientAddress, by: accountWait > 0 ? "account" : "address", retryAfterSeconds },
        "sign-in throttled",
      );
      return { allowed: false, retryAfterSeconds };
    },
    async recordFailure(email, clientAddress) {
      const consume = (rateLimiter: RateLimiterAbstract, key: string) =>
        rateLimiter.consume(key).catch((rejection: unknown) => {
          if (!(rejection instanceof RateLimiterRes)) options.logger.warn({ err: rejection }, "sign-in throttle write failed");
        });
      await Promise.all([consume(accounts, accountKey(email)), consume(addresses, addressKey(clientAddress))]);
    },
    async recordSuccess(email) {
      await accounts.delete(accountKey(email)).catch(() => undefined);
    },
  };
}
