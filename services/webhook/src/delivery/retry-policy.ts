/**
 * When to try a failed delivery again (docs/decisions/0011-webhook-retries-and-disabling.md). `scheduleSeconds[i]` is the
 * delay before attempt i + 1, so the first entry (0) is the immediate first attempt and the
 * delivery is abandoned after `scheduleSeconds.length` attempts. Every delay gets ±20 % jitter so
 * retries of many deliveries that failed together do not arrive together.
 */
export interface RetryPolicy {
  scheduleSeconds: readonly number[];
  /** Least delay after a timeout or a 429, when the receiver is telling us to slow down. */
  throttledMinDelaySeconds: number;
  /** Fraction of the delay added or removed at random (0.2 = ±20 %). */
  jitter: number;
}

export interface FailedAttempt {
  /** The response status, or undefined when no response arrived. */
  statusCode?: number;
  timedOut: boolean;
  /** Seconds the receiver asked us to wait (`Retry-After`), when it did. */
  retryAfterSeconds?: number;
}

/**
 * Milliseconds until the next attempt after `attemptsMade` attempts, the last of which failed as
 * described; undefined when the schedule is exhausted and the delivery has failed for good.
 */
export function nextRetryDelayMs(policy: RetryPolicy, attemptsMade: number, failure: FailedAttempt, random: () => number = Math.random): number | undefined {
  const scheduledSeconds = policy.scheduleSeconds[attemptsMade];
  if (scheduledSeconds === undefined) return undefined;
  const scheduledMs = scheduledSeconds * 1000;
  let delayMs = scheduledMs * (1 + policy.jitter * (2 * random() - 1));
  const throttled = failure.timedOut || failure.statusCode === 429;
  if (throttled) delayMs = Math.max(delayMs, policy.throttledMinDelaySeconds * 1000);
  // Honour Retry-After, but never beyond twice the scheduled delay: a receiver cannot park a
  // delivery indefinitely, nor make us retry sooner than the schedule.
  if (failure.retryAfterSeconds !== undefined && failure.retryAfterSeconds > 0) {
    delayMs = Math.max(delayMs, Math.min(failure.retryAfterSeconds * 1000, 2 * scheduledMs));
  }
  return Math.round(delayMs);
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now: Date = new Date()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}
