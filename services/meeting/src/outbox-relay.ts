import { setTimeout as sleep } from "node:timers/promises";
import { retryBackoffMs, type Logger } from "@svc/platform";
import { type EventPublisher } from "@svc/platform/events";
import type { Outbox } from "./db/outbox.ts";

export interface OutboxRelayOptions {
  outbox: Outbox;
  publisher: EventPublisher;
  logger: Logger;
  /** How often an idle relay looks for rows written by other replicas (this one wakes at once). */
  pollIntervalMs: number;
  /** Longest wait between attempts while the broker keeps failing. */
  maxBackoffMs: number;
  batchSize?: number;
  /**
   * While events keep coming (the last pass published some), a pass starts at least this long
   * after the one before, so the events of many requests share one claim, one publish and one
   * mark; a wake after a quiet pass publishes at once. Default BUSY_PASS_INTERVAL_MS.
   */
  busyPassIntervalMs?: number;
}

/**
 * Long enough that under load a pass carries the events of many requests (at 200 ends a second,
 * about five), short beside the latency of a webhook delivery.
 */
const BUSY_PASS_INTERVAL_MS = 25;

export interface OutboxRelay {
  /** Publish now: called after a transaction wrote to the outbox. */
  wake(): void;
  /** Finishes the batch in flight, then stops. */
  stop(): Promise<void>;
}

/**
 * Moves outbox rows to the event bus: leases unsent rows (so replicas share the work and never
 * publish one row concurrently), publishes them outside any transaction, marks them sent (see
 * Outbox.publishPending). While the broker is down it retries with exponential backoff; the rows
 * wait in the outbox, so nothing is lost, and a row is marked sent only after the broker
 * acknowledged it. Sent rows are removed by the meeting service's retention task.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { outbox, publisher, logger } = options;
  const batchSize = options.batchSize ?? 100;
  const busyPassIntervalMs = options.busyPassIntervalMs ?? BUSY_PASS_INTERVAL_MS;
  const stopping = new AbortController();
  let wakeUp: (() => void) | undefined;
  let woken = false;

  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || stopping.signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeUp = done;
    });

  const loop = async () => {
    let failures = 0;
    let lastPassStarted = -Infinity;
    let lastPassPublished = 0;
    while (!stopping.signal.aborted) {
      // Busy: let the events of the requests in flight gather for this pass (a full batch goes at once).
      const wait = lastPassPublished > 0 && lastPassPublished < batchSize ? lastPassStarted + busyPassIntervalMs - performance.now() : 0;
      if (wait > 0) await sleep(wait, undefined, { signal: stopping.signal }).catch(() => undefined);
      woken = false;
      lastPassStarted = performance.now();
      try {
        const published = await outbox.publishPending(batchSize, (events) => publisher.publish(events));
        lastPassPublished = published;
        if (failures > 0) logger.info({ afterFailures: failures }, "outbox relay publishing again");
        failures = 0;
        if (published === batchSize) continue; // more may be waiting
        if (published > 0) logger.debug({ published }, "outbox rows published");
        await idle(options.pollIntervalMs);
      } catch (error) {
        lastPassPublished = 0;
        failures += 1;
        const delay = retryBackoffMs(failures, { initialMs: 250, maxMs: options.maxBackoffMs });
        // Say so on the first failure and then now and again, not on every retry of a long outage.
        if (failures === 1 || failures % 10 === 0) logger.warn({ err: error, failures, retryInMs: Math.round(delay) }, "outbox relay cannot publish; retrying");
        await sleep(delay, undefined, { signal: stopping.signal }).catch(() => undefined);
      }
    }
  };

  const running = loop();

  return {
    wake() {
      woken = true;
      wakeUp?.();
    },
    async stop() {
      stopping.abort();
      wakeUp?.();
      await running;
    },
  };
}
