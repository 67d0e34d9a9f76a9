import { createHash, createHmac, randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import { RateLimiterRes } from "rate-limiter-flexible";
import { clientAddressKey, createRateLimiter, type Logger } from "@svc/platform";

export interface SignInThrottleOptions {
  /** Failed attempts per account (e-mail address, whether or not it exists) before backoff starts. */
  maxFailuresPerAccount: number;
  /** Failed attempts per client address before backoff starts. */
  maxFailuresPerAddress: number;
  /** How long failures are remembered, counted from the first one. */
  windowSeconds: number;
  /** The first wait once the allowance is used up; each further failure doubles it... */
  backoffBaseSeconds: number;
  /** ...up to this. */
  backoffMaxSeconds: number;
  /** Shared counters for every identity replica; in-process without it (and while Redis is down). */
  redis?: Redis | undefined;
  keyPrefix: string;
  logger: Logger;
  /** Told of every refused attempt (for the metrics). */
  onThrottled?: (by: "account" | "address") => void;
}

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Throttles password guessing, for the OAuth sign-in page and the dashboard alike, per account
 * and per client address, with exponential backoff: the first `maxFailures` attempts are free;
 * from then on one attempt is let through per backoff period, which doubles with every further
 * failure (base, 2×base, 4×base... up to the maximum), until the failures are forgotten
 * (`windowSeconds` after the first) or the account signs in. A refused attempt is refused before
 * the password is checked, so the right password is refused too, and it does not count.
 *
 * Each attempt is counted *before* its password is checked (`reserve`) and the count is given
 * back on success: a burst of parallel guesses cannot all pass a check that only counts
 * finished failures. The account key is the SHA-256 of the normalised e-mail address, so an
 * address without an account is throttled exactly like one with an account (no difference to
 * observe) and no address is ever a Redis key.
 */
export interface SignInThrottle {
  /** Lets the attempt through (counted as a failure until `recordSuccess`) or refuses it. */
  reserve(email: string, clientAddress: string): Promise<ThrottleDecision>;
  /** The reserved attempt signed in: the account's failures are forgotten, the address's attempt given back. */
  recordSuccess(email: string, clientAddress: string): Promise<void>;
}

/** One throttled dimension (accounts or client addresses): a failure count and a backoff gate per key. */
interface BackoffDimension {
  /** The attempt's reservation, or how long the key must wait. */
  reserve(key: string): Promise<{ failures: number; backoffSeconds?: number; release(): Promise<void> } | { retryAfterMs: number }>;
  /** Forgets the key's failures and any backoff (the account's owner signed in). */
  forget(key: string): Promise<void>;
  /** Takes one counted attempt back (it was not a failure). */
  giveBack(key: string): Promise<void>;
}

export function createSignInThrottle(options: SignInThrottleOptions): SignInThrottle {
  const { logger } = options;
  const accounts = backoffDimension("account", options.maxFailuresPerAccount, options);
  const addresses = backoffDimension("address", options.maxFailuresPerAddress, options);
  const accountKey = (email: string) => createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
  // An IPv6 client is counted on its /64: one subscriber commonly holds the whole /64.
  const addressKey = (clientAddress: string) => clientAddressKey(clientAddress) || "unknown";
  // What the log calls an account: an HMAC of its key under a random key of this process (never
  // written anywhere), so lines about one account can be told apart and followed, but an unsalted
  // hash of a guessable e-mail address, which a dictionary reverses, never reaches the logs.
  const logKey = randomBytes(32);
  const loggedAccount = (account: string) => createHmac("sha256", logKey).update(account).digest("hex").slice(0, 16);

  const refuse = (account: string, clientAddress: string, by: "account" | "address", retryAfterMs: number): ThrottleDecision => {
    const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    options.onThrottled?.(by);
    logger.warn({ account: loggedAccount(account), clientAddress, by, retryAfterSeconds }, "sign-in throttled");
    return { allowed: false, retryAfterSeconds };
  };

  return {
    async reserve(email, clientAddress) {
      const account = accountKey(email);
      const byAccount = await accounts.reserve(account);
      if ("retryAfterMs" in byAccount) return refuse(account, clientAddress, "account", byAccount.retryAfterMs);
      const byAddress = await addresses.reserve(addressKey(clientAddress));
      if ("retryAfterMs" in byAddress) {
        await byAccount.release();
        return refuse(account, clientAddress, "address", byAddress.retryAfterMs);
      }
      for (const [by, reservation] of [
        ["account", byAccount],
        ["address", byAddress],
      ] as const) {
        if (reservation.backoffSeconds !== undefined) {
          logger.warn(
            { account: loggedAccount(account), clientAddress, by, failures: reservation.failures, backoffSeconds: reservation.backoffSeconds },
            "sign-in backoff: the next attempt must wait",
          );
        }
      }
      return { allowed: true };
    },
    async recordSuccess(email, clientAddress) {
      // Only the attempt is given back to the address: signing in to one account must not wipe
      // the failures an address piled up against others.
      await Promise.all([accounts.forget(accountKey(email)), addresses.giveBack(addressKey(clientAddress))]);
    },
  };
}

function backoffDimension(name: "account" | "address", allowance: number, options: SignInThrottleOptions): BackoffDimension {
  const limiter = (part: string, durationSeconds: number) =>
    createRateLimiter({ name: `signin:${name}:${part}`, points: 1, durationSeconds, redis: options.redis, keyPrefix: options.keyPrefix });
  // Failures, counted with penalty/reward (never refused by the counter itself).
  const failures = limiter("failures", options.windowSeconds);
  // One attempt per backoff period: the first consume opens the period, later ones are refused until it ends.
  const gate = limiter("gate", options.backoffMaxSeconds);
  const backoffSeconds = (failuresBeyondAllowance: number) =>
    Math.min(options.backoffMaxSeconds, options.backoffBaseSeconds * 2 ** Math.min(failuresBeyondAllowance, 30));
  const quietly = (operation: Promise<unknown>) => operation.catch((error: unknown) => options.logger.warn({ err: error }, "sign-in throttle write failed"));

  return {
    async reserve(key) {
      const counted = await failures.penalty(key, 1).catch((error: unknown) => {
        options.logger.warn({ err: error }, "sign-in throttle failed; counting in-process");
        return undefined;
      });
      const count = counted?.consumedPoints ?? 1;
      const release = async () => void (await quietly(failures.reward(key, 1)));
      if (count < allowance) return { failures: count, release };
      const wait = backoffSeconds(count - allowance);
      try {
        await gate.consume(key, 1, { customDuration: wait });
      } catch (rejection) {
        await release();
        if (rejection instanceof RateLimiterRes) return { retryAfterMs: rejection.msBeforeNext };
        options.logger.warn({ err: rejection }, "sign-in throttle gate failed; attempt let through");
      }
      return {
        failures: count,
        backoffSeconds: wait,
        release: async () => {
          await release();
          await quietly(gate.delete(key));
        },
      };
    },
    async forget(key) {
      await quietly(Promise.all([failures.delete(key), gate.delete(key)]));
    },
    async giveBack(key) {
      await quietly(failures.reward(key, 1));
    },
  };
}
