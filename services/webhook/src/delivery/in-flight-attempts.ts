import type { ClaimedDelivery } from "../db/deliveries.ts";

/**
 * The attempts a dispatcher has running, and how it stops them: `drain` waits for them up to a
 * deadline, then aborts the rest (`signal`), whose deliveries are set aside (`abandon`) for their
 * leases to be given back rather than wait to expire.
 */
export class InFlightAttempts {
  readonly #running = new Set<Promise<void>>();
  readonly #abort = new AbortController();
  readonly #abandoned: ClaimedDelivery[] = [];

  /** Aborted when `drain` gives up waiting: a request cut short must not be recorded as a failure. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Counts `attempt` as running until it settles (its errors are the caller's to log: here a rejection only ends it). */
  track(attempt: Promise<void>): void {
    const settled = () => void this.#running.delete(tracked);
    const tracked = attempt.then(settled, settled);
    this.#running.add(tracked);
  }

  /** An attempt cut short by the abort: its delivery was neither sent nor recorded. */
  abandon(delivery: ClaimedDelivery): void {
    this.#abandoned.push(delivery);
  }

  /** Waits up to `ms` for the running attempts, then aborts the rest and waits for them to end; answers the abandoned deliveries. */
  async drain(ms: number): Promise<ClaimedDelivery[]> {
    const settled = Promise.allSettled([...this.#running]);
    const deadline = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), ms).unref());
    if ((await Promise.race([settled, deadline])) === "timeout") {
      this.#abort.abort();
      await Promise.allSettled([...this.#running]);
    }
    return this.#abandoned.splice(0);
  }
}
