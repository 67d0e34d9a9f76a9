import type { Redis } from "ioredis";
import { createRateLimiter, type Logger } from "@svc/platform";

/** Wrong passwords one authorization request may take before it is ended. */
export const MAX_SIGN_IN_ATTEMPTS_PER_INTERACTION = 5;

/**
 * Counts the failed sign-ins of each OAuth interaction (an authorization request waiting for
 * sign-in, valid for an hour): after MAX_SIGN_IN_ATTEMPTS_PER_INTERACTION the interaction is
 * ended, so one request cannot be reused for guessing; the account and address throttle still
 * applies across interactions. Shared through Redis like the throttle, in-process without it.
 */
export interface InteractionSignInAttempts {
  /** Records a failed attempt; true once the interaction has used up its attempts. */
  recordFailure(interactionUid: string): Promise<boolean>;
}

export function interactionSignInAttempts(options: {
  redis?: Redis | undefined;
  keyPrefix: string;
  /** Longer than an interaction lives. */
  durationSeconds: number;
  logger: Logger;
}): InteractionSignInAttempts {
  const counter = createRateLimiter({
    name: "signin:interaction",
    points: MAX_SIGN_IN_ATTEMPTS_PER_INTERACTION,
    durationSeconds: options.durationSeconds,
    redis: options.redis,
    keyPrefix: options.keyPrefix,
  });
  return {
    async recordFailure(interactionUid) {
      const counted = await counter.penalty(interactionUid, 1).catch((error: unknown) => {
        options.logger.warn({ err: error }, "interaction sign-in attempts could not be counted");
        return undefined;
      });
      return (counted?.consumedPoints ?? 0) >= MAX_SIGN_IN_ATTEMPTS_PER_INTERACTION;
    },
  };
}
