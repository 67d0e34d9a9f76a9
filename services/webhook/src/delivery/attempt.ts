import { createBatcher, type Logger } from "@svc/platform";
import type { Pool } from "@svc/platform/db";
import { recordFailure, recordSuccesses, settleWithoutAttempt, type CircuitBreakerPolicy, type ClaimedDelivery } from "../db/deliveries.ts";
import { deferDelivery } from "../db/deferrals.ts";
import type { SecretBox } from "../signing/secret-box.ts";
import { signingKey } from "../signing/signing-secret.ts";
import { tracedAttempt } from "./attempt-span.ts";
import type { EndpointRateLimiter } from "./endpoint-rate-limiter.ts";
import type { AttemptOutcome, HttpSender } from "./http-sender.ts";
import { nextRetryDelayMs, type RetryPolicy } from "./retry-policy.ts";

export interface AttemptOptions {
  pool: Pool;
  sender: HttpSender;
  secretBox: SecretBox;
  retryPolicy: RetryPolicy;
  rateLimiter: EndpointRateLimiter;
  circuitBreaker: CircuitBreakerPolicy;
  disableAfterMs: number;
  /** The claim loop's longest rest: a retry due sooner asks for a wake-up of its own. */
  pollIntervalMs: number;
  logger: Logger;
}

/** What an attempt tells the dispatcher that runs it. */
export interface AttemptEvents {
  /** Aborted when the dispatcher stops waiting for attempts: a request cut short is not a failure. */
  readonly abandonSignal: AbortSignal;
  /** The attempt was cut short by `abandonSignal`: nothing was recorded, its lease is to be given back. */
  abandoned(delivery: ClaimedDelivery): void;
  /** The endpoint takes no attempts for now (its circuit opened, or it was disabled): what was claimed ahead for it must not be sent. */
  endpointStopped(subscriptionId: string): Promise<void>;
  /** Work becomes due in `ms` (a deferral or an early retry): look for it then, not at the next poll. */
  wakeIn(ms: number): void;
}

/** Sends one claimed delivery and records its outcome; `freeSlot` gives the endpoint's slot back as soon as the answer is in. */
export type SendAttempt = (delivery: ClaimedDelivery, freeSlot: () => void) => Promise<void>;

/**
 * One delivery attempt, from the claimed row to the recorded outcome: settle deliveries whose
 * subscription went away, wait for the endpoint's rate-limit turn, sign with the current (and
 * during a rotation the previous) secret, send, and record success (batched) or failure (retry
 * schedule, circuit breaker and disable policy, applied in db/deliveries.ts's recordFailure).
 */
export function createAttemptSender(options: AttemptOptions, events: AttemptEvents): SendAttempt {
  const { pool, logger } = options;
  // Successes that finish together are recorded together: one commit for many deliveries.
  const successes = createBatcher((batch: { delivery: ClaimedDelivery; attempt: AttemptOutcome }[]) => recordSuccesses(pool, batch), 200);

  async function recordOutcomeOfFailure(delivery: ClaimedDelivery, outcome: AttemptOutcome) {
    const attemptsMade = delivery.attemptCount + 1;
    const retryInMs = delivery.singleAttempt ? undefined : nextRetryDelayMs(options.retryPolicy, attemptsMade, outcome);
    const { disabledFor, circuitOpened } = await recordFailure(pool, delivery, outcome, {
      retryInMs: retryInMs ?? null,
      disableAfterMs: options.disableAfterMs,
      timedOut: outcome.timedOut,
      circuitBreaker: options.circuitBreaker,
    });
    logger.info(
      {
        deliveryId: delivery.id,
        subscriptionId: delivery.subscriptionId,
        attempt: attemptsMade,
        status: outcome.statusCode,
        error: outcome.error,
        latencyMs: outcome.latencyMs,
        retryInMs,
      },
      "delivery attempt failed",
    );
    if (circuitOpened) {
      logger.warn(
        { subscriptionId: delivery.subscriptionId, orgId: delivery.orgId, openMs: options.circuitBreaker.openMs },
        "endpoint keeps timing out: circuit open, no attempts to it for a while",
      );
    }
    if (circuitOpened || disabledFor) await events.endpointStopped(delivery.subscriptionId);
    if (disabledFor) logger.warn({ subscriptionId: delivery.subscriptionId, reason: disabledFor }, "subscription disabled");
    // A retry due before the next poll would otherwise wait for it.
    else if (retryInMs !== undefined && retryInMs < options.pollIntervalMs) events.wakeIn(retryInMs);
  }

  /** The keys to sign with, or undefined when a sealed secret cannot be opened (recorded as a failed attempt). */
  async function signingKeysOrFailure(delivery: ClaimedDelivery, secretSealed: Buffer): Promise<Buffer[] | undefined> {
    try {
      const keys = [signingKey(options.secretBox.open(secretSealed, delivery.subscriptionId))];
      // During a rotation's grace window the replaced secret signs too, so receivers not yet switched verify.
      if (delivery.previousSecretSealed) keys.push(signingKey(options.secretBox.open(delivery.previousSecretSealed, delivery.subscriptionId)));
      return keys;
    } catch {
      // Not retrying silently forever: the failure is logged as an attempt and follows the schedule.
      logger.error({ subscriptionId: delivery.subscriptionId }, "cannot decrypt a signing secret: was WEBHOOK_SECRET_KEY changed?");
      const error = "the signing secret could not be decrypted (server configuration); nothing was sent";
      await recordOutcomeOfFailure(delivery, { attemptedAt: new Date(), succeeded: false, latencyMs: 0, error, responseExcerpt: "", timedOut: false });
      return undefined;
    }
  }

  return async function sendAttempt(delivery, freeSlot) {
    // The subscription changed after the delivery was stored (a race with delete or disable).
    if (delivery.subscriptionGone || !delivery.secretSealed) return settleWithoutAttempt(pool, delivery, "cancelled");
    if (delivery.subscriptionDisabled) return settleWithoutAttempt(pool, delivery, "failed");

    if (delivery.rateLimitPerSecond !== null) {
      const waitMs = await options.rateLimiter.take(delivery.subscriptionId, delivery.rateLimitPerSecond);
      if (waitMs > 0) {
        // Not an attempt: the delivery waits for the endpoint's next turn, for whichever replica has it then.
        await deferDelivery(pool, delivery, waitMs);
        events.wakeIn(waitMs);
        return;
      }
    }

    const keys = await signingKeysOrFailure(delivery, delivery.secretSealed);
    if (!keys) return;
    const outcome = await tracedAttempt(delivery, () =>
      options.sender.send({ url: delivery.url, messageId: delivery.id, body: delivery.body, signingKeys: keys }, events.abandonSignal),
    );
    if (events.abandonSignal.aborted && !outcome.succeeded) {
      events.abandoned(delivery);
      return;
    }
    if (outcome.succeeded) {
      freeSlot();
      await successes.add({ delivery, attempt: outcome });
      logger.debug({ deliveryId: delivery.id, subscriptionId: delivery.subscriptionId, status: outcome.statusCode, latencyMs: outcome.latencyMs }, "delivered");
      return;
    }
    await recordOutcomeOfFailure(delivery, outcome);
  };
}
