import type { Config } from "../config.ts";
import type { DispatcherOptions } from "./dispatcher.ts";

/** A claim's lease outlives the request timeout by this much, for recording the outcome (so a slow answer is not sent twice). */
const LEASE_MARGIN_MS = 10_000;

/** How long a delivery claimed ahead may wait in a replica for its endpoint's slot (the lease covers it too). */
const QUEUE_WAIT_MS = 2_000;

/** Fraction of each retry delay added or removed at random (docs/decisions/0011-webhook-retries-and-disabling.md). */
const RETRY_JITTER = 0.2;

export type DispatcherSettings = Pick<
  DispatcherOptions,
  | "retryPolicy"
  | "concurrency"
  | "perEndpointConcurrency"
  | "perOrganizationConcurrency"
  | "circuitBreaker"
  | "leaseMs"
  | "queueWaitMs"
  | "pollIntervalMs"
  | "disableAfterMs"
>;

/**
 * The dispatcher's policy as the configuration sets it: retry schedule, concurrency limits, circuit
 * breaker, lease and timings. One mapping for the service and for the tests and benchmarks that run
 * a dispatcher of their own, so they measure the production policy. `timeoutMs` is the request
 * timeout the sender uses (the lease follows it).
 */
export function dispatcherSettings(config: Config, timeoutMs = config.WEBHOOK_TIMEOUT_MS): DispatcherSettings {
  return {
    retryPolicy: { scheduleSeconds: config.WEBHOOK_RETRY_SCHEDULE, throttledMinDelaySeconds: config.WEBHOOK_THROTTLED_MIN_DELAY_SECONDS, jitter: RETRY_JITTER },
    concurrency: config.WEBHOOK_CONCURRENCY,
    perEndpointConcurrency: config.WEBHOOK_PER_ENDPOINT_CONCURRENCY,
    perOrganizationConcurrency: config.WEBHOOK_PER_ORG_CONCURRENCY,
    circuitBreaker: { consecutiveTimeouts: config.WEBHOOK_CIRCUIT_BREAKER_TIMEOUTS, openMs: config.WEBHOOK_CIRCUIT_BREAKER_OPEN_SECONDS * 1000 },
    leaseMs: QUEUE_WAIT_MS + timeoutMs + LEASE_MARGIN_MS,
    queueWaitMs: QUEUE_WAIT_MS,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
  };
}
