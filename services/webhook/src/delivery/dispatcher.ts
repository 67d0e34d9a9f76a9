import { randomUUID } from "node:crypto";
import { withEventContext, type Logger } from "@svc/platform";
import { type Pool } from "@svc/platform/db";
import { claimDueDeliveries, nextDueAt, releaseLeases, type CircuitBreakerPolicy, type ClaimedDelivery } from "../db/deliveries.ts";
import type { SecretBox } from "../signing/secret-box.ts";
import type { HttpSender } from "./http-sender.ts";
import { createAttemptSender } from "./attempt.ts";
import { DeliverySlots } from "./delivery-slots.ts";
import { createEndpointRateLimiter, type EndpointRateLimiter } from "./endpoint-rate-limiter.ts";
import { InFlightAttempts } from "./in-flight-attempts.ts";
import type { RetryPolicy } from "./retry-policy.ts";
import { WakeSignal } from "./wake-signal.ts";

export interface DispatcherOptions {
  pool: Pool;
  sender: HttpSender;
  secretBox: SecretBox;
  retryPolicy: RetryPolicy;
  logger: Logger;
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** Attempts in flight at once to one subscription. */
  perEndpointConcurrency: number;
  /** Each endpoint's own deliveries-per-second limit, shared by every replica (default: counted in this process). */
  rateLimiter?: EndpointRateLimiter;
  /** Attempts in flight at once to one organization's endpoints, so one tenant cannot take every slot. */
  perOrganizationConcurrency: number;
  circuitBreaker: CircuitBreakerPolicy;
  /** How long a claim keeps other replicas off a delivery; longer than the request timeout plus `queueWaitMs`. */
  leaseMs: number;
  /**
   * Longest a delivery claimed ahead waits in this replica for its endpoint's free slot; after
   * that its lease is given back (so the lease always outlives wait, request and recording).
   */
  queueWaitMs: number;
  /** Longest sleep without a wake-up (catches due retries and expired leases). */
  pollIntervalMs: number;
  disableAfterMs: number;
  /** How long `stop` lets attempts in flight finish before abandoning them. */
  drainMs?: number;
}

export interface Dispatcher {
  start(): void;
  /** New deliveries may be due: look now rather than at the next poll. */
  wake(): void;
  /** Stops claiming, lets attempts in flight finish (up to `drainMs`), gives back the rest. */
  stop(): Promise<void>;
}

const MAX_BATCH = 128;
/** Each replica leases up to this many rounds of its concurrency budgets: one on the wire, the rest queued. */
const LOOKAHEAD = 2;
/** Pause when due work waits only for a claim another replica is making at this moment. */
const CONTENDED_PAUSE_MS = 50;

/**
 * Sends due deliveries. Several replicas may run against one database: each claims a batch with a
 * lease, fairly across organizations (see claimDueDeliveries), sends it with bounded concurrency
 * overall, per organization and per endpoint, and records every attempt. A replica that dies mid-attempt leaves a lease that expires, after which
 * another replica sends the delivery again: delivery is at least once.
 *
 * Draining a backlog to one endpoint is bound by how fast a slot of that endpoint turns over, so
 * a slot is held only for the request: a success is recorded after it is freed (its lease keeps
 * every replica off it until then), and each replica claims up to one more round of deliveries
 * per endpoint than it may send at once, queued here, so a freed slot is refilled at once rather
 * than after a claim's round trip to the database.
 *
 * This function is the wiring; its parts, below, are the claim loop (claimLoop, claimRound, restAfterClaim),
 * launching attempts (attemptLauncher) and giving leases back (leaseReturns). The parts they use are
 * modules of their own: DeliverySlots (what this replica holds and may launch), attempt.ts (one
 * attempt, from the claimed row to the recorded outcome), InFlightAttempts (stopping), WakeSignal
 * (resting until something is due).
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const runtime: DispatcherRuntime = {
    options,
    rateLimiter: options.rateLimiter ?? createEndpointRateLimiter({ keyPrefix: "", logger: options.logger }),
    slots: new DeliverySlots({
      concurrency: options.concurrency,
      perEndpoint: options.perEndpointConcurrency,
      perOrganization: options.perOrganizationConcurrency,
    }),
    inFlight: new InFlightAttempts(),
    signal: new WakeSignal(),
    stopping: false,
    backlogLikely: false,
  };
  const leases = leaseReturns(runtime);
  const launcher = attemptLauncher(runtime, leases);
  let loop: Promise<void> | undefined;
  return {
    start() {
      loop ??= claimLoop(runtime, launcher, leases);
    },
    wake: () => runtime.signal.wake(),
    async stop() {
      runtime.stopping = true;
      runtime.signal.close();
      await loop;
      const abandoned = await runtime.inFlight.drain(options.drainMs ?? 5_000);
      await leases.giveBackStaleQueued(Infinity);
      await leases.giveBack(abandoned);
    },
  };
}

/** What the parts of one dispatcher share. */
interface DispatcherRuntime {
  readonly options: DispatcherOptions;
  readonly rateLimiter: EndpointRateLimiter;
  readonly slots: DeliverySlots;
  readonly inFlight: InFlightAttempts;
  readonly signal: WakeSignal;
  /** Set by `stop`: nothing is claimed or launched after. */
  stopping: boolean;
  /** Set when the last claim may have left due work behind, so a finished attempt should claim again. */
  backlogLikely: boolean;
}

type QueuedEntry = { delivery: ClaimedDelivery; claimedAt: number };
type LeaseReturns = ReturnType<typeof leaseReturns>;
type AttemptLauncher = ReturnType<typeof attemptLauncher>;

/** Claims due deliveries and launches them until stopped, resting when nothing more is due now. */
async function claimLoop(runtime: DispatcherRuntime, launcher: AttemptLauncher, leases: LeaseReturns) {
  const { options, slots, signal } = runtime;
  while (!runtime.stopping) {
    await leases.giveBackStaleQueued();
    const free = LOOKAHEAD * options.concurrency - slots.launchedCount - slots.queuedCount;
    if (free <= 0) {
      // Every slot is busy: a finished attempt wakes us (backlogLikely), or the poll does.
      runtime.backlogLikely = true;
      signal.take();
      await signal.sleep(longestRest(runtime));
      continue;
    }
    signal.take();
    const limit = Math.min(free, MAX_BATCH);
    const claimed = await claimRound(runtime, limit);
    if (!claimed) {
      await signal.sleep(Math.min(1_000, options.pollIntervalMs));
      continue;
    }
    const claimedAt = Date.now();
    for (const delivery of claimed) slots.enqueue(delivery, claimedAt);
    launcher.sendQueued();
    await restAfterClaim(runtime, claimed.length === limit);
  }
}

/** One claim of up to `limit` deliveries, fairly across organizations and endpoints; undefined when the claim failed (logged). */
async function claimRound({ options, slots, rateLimiter }: DispatcherRuntime, limit: number): Promise<ClaimedDelivery[] | undefined> {
  // What this replica holds per endpoint (on the wire or queued); endpoints out of rate-limit turns
  // count as full, so their deliveries stay unclaimed until the next window.
  const inFlight = slots.heldPerEndpoint();
  for (const id of rateLimiter.pausedEndpoints()) inFlight.set(id, LOOKAHEAD * options.perEndpointConcurrency);
  try {
    return await claimDueDeliveries(options.pool, {
      limit,
      leaseMs: options.leaseMs,
      leaseToken: randomUUID(),
      perEndpoint: LOOKAHEAD * options.perEndpointConcurrency,
      perOrganization: LOOKAHEAD * options.perOrganizationConcurrency,
      inFlight,
      inFlightByOrganization: slots.heldPerOrganization(),
    });
  } catch (error) {
    options.logger.error({ err: error }, "could not claim deliveries; retrying");
    return undefined;
  }
}

/** After a claim: claims again at once when it got all it asked for, else rests until something is due or frees up. */
async function restAfterClaim(runtime: DispatcherRuntime, gotAll: boolean) {
  const { slots, signal } = runtime;
  const saturated = slots.queuedCount > 0 || slots.atCapacity();
  runtime.backlogLikely = gotAll || saturated;
  // A claim that got fewer than it asked for took everything due (what the caps held back is
  // `saturated`): claiming again at once would find nothing, so wait for a wake-up or the due time.
  if (gotAll || signal.requested || runtime.stopping) return;
  const untilDue = saturated ? 0 : await millisecondsUntilDue(runtime.options);
  if (untilDue > 0) {
    await signal.sleep(untilDue);
    return;
  }
  // Due work is waiting for attempts in flight (its endpoint or organization at its limit, or a
  // half-open circuit's probe): the next finished attempt wakes us, the poll at the latest.
  // With nothing in flight, another replica was claiming it at this very moment.
  runtime.backlogLikely = true;
  await signal.sleep(slots.launchedCount > 0 ? longestRest(runtime) : CONTENDED_PAUSE_MS);
}

/** How long the loop may sleep waiting for attempts in flight: queued deliveries are checked for staleness in time. */
function longestRest({ slots, options }: DispatcherRuntime) {
  return slots.queuedCount > 0 ? Math.min(options.pollIntervalMs, options.queueWaitMs) : options.pollIntervalMs;
}

async function millisecondsUntilDue(options: DispatcherOptions): Promise<number> {
  try {
    const due = await nextDueAt(options.pool);
    if (!due) return options.pollIntervalMs;
    return Math.max(0, Math.min(options.pollIntervalMs, due.getTime() - Date.now()));
  } catch {
    return options.pollIntervalMs;
  }
}

/** Launches queued deliveries as slots free up, each attempt in the request and trace its event came from. */
function attemptLauncher(runtime: DispatcherRuntime, leases: LeaseReturns) {
  const { options, slots, inFlight, signal } = runtime;
  const wake = () => signal.wake();
  const sendAttempt = createAttemptSender(
    { ...options, rateLimiter: runtime.rateLimiter },
    {
      abandonSignal: inFlight.signal,
      abandoned: (delivery) => inFlight.abandon(delivery),
      // What this replica claimed ahead for the endpoint must not be sent now.
      endpointStopped: (subscriptionId) => leases.giveBackQueued((entry) => entry.delivery.subscriptionId === subscriptionId),
      wakeIn: (ms) => setTimeout(wake, ms).unref(),
    },
  );

  /** Launches queued deliveries while their endpoint, their organization and the process have room. */
  function sendQueued() {
    if (runtime.stopping) return;
    for (const delivery of slots.launchable()) launch(delivery);
  }

  /** Sends a delivery `slots` counted as launched; its slots are freed when the request is over. */
  function launch(delivery: ClaimedDelivery) {
    const freeSlot = () => {
      if (!slots.freeSlot(delivery.id)) return;
      sendQueued();
      if (runtime.backlogLikely) wake();
    };
    // In the request and trace the event came from: its log lines and attempt span name them.
    const attempt = withEventContext(delivery.context, () => sendAttempt(delivery, freeSlot))
      .catch((error: unknown) => {
        // The lease will expire and the delivery will be sent again: at least once.
        options.logger.error({ err: error, deliveryId: delivery.id }, "could not record a delivery attempt");
      })
      .finally(() => {
        freeSlot();
        slots.finish(delivery.id);
        sendQueued();
      });
    inFlight.track(attempt);
  }

  return { sendQueued };
}

/** Gives claimed deliveries back to every replica (their leases released) when they should not wait here. */
function leaseReturns({ options, slots }: DispatcherRuntime) {
  async function giveBack(deliveries: ClaimedDelivery[]) {
    if (deliveries.length === 0) return;
    await releaseLeases(options.pool, deliveries).catch((error: unknown) => options.logger.warn({ err: error }, "could not release leases; they will expire"));
  }
  /** Releases the leases of queued deliveries that should not wait here any more. */
  const giveBackQueued = (shouldGiveBack: (entry: QueuedEntry) => boolean) => giveBack(slots.takeQueued(shouldGiveBack));
  return {
    giveBack,
    giveBackQueued,
    /** Deliveries queued longer than `queueWaitMs` (their endpoint stayed busy) go back to every replica. */
    giveBackStaleQueued: (olderThan = Date.now() - options.queueWaitMs) => giveBackQueued((entry) => entry.claimedAt <= olderThan),
  };
}
