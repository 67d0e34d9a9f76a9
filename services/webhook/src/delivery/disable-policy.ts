import type { DisabledSubscription } from "../payloads.ts";

/**
 * When a failed attempt disables its subscription (docs/decisions/0011-webhook-retries-and-disabling.md):
 * at once when the endpoint answered 410 Gone (it says it is gone for good), or when the endpoint
 * has failed every attempt for `disableAfterMs` (any success resets that clock). Disabling never
 * deletes: the organization re-enables explicitly.
 */
export interface DisablePolicy {
  disableAfterMs: number;
}

export interface DisableDecision {
  /** Stored as the subscription's `disabledReason` and sent in `webhook.disabled`. */
  reason: string;
  trigger: DisabledSubscription["trigger"];
}

/**
 * Whether this failed attempt disables the subscription. `failingSince` is when the endpoint's
 * current failure streak began (this attempt included), null when it has none.
 */
export function disableDecision(
  failure: { statusCode?: number | undefined; attemptedAt: Date },
  failingSince: Date | null,
  policy: DisablePolicy,
): DisableDecision | undefined {
  if (failure.statusCode === 410) return { reason: "the endpoint answered 410 Gone", trigger: "gone" };
  if (failingSince !== null && failure.attemptedAt.getTime() - failingSince.getTime() >= policy.disableAfterMs) {
    return { reason: `failing without a successful delivery since ${failingSince.toISOString()}`, trigger: "continuous_failure" };
  }
  return undefined;
}
