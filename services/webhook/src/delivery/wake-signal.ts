/**
 * How the dispatcher's claim loop rests: `sleep(ms)` ends early when `wake()` is called, and a
 * wake-up that came while the loop was busy (before it slept) still counts, so none is slept
 * through. `close()` ends every rest at once, for good (the dispatcher is stopping).
 */
export class WakeSignal {
  #requested = false;
  #closed = false;
  #wakeUp: (() => void) | undefined;

  /** Something may be due now: end the current rest, or the next one before it starts. */
  wake(): void {
    this.#requested = true;
    this.#wakeUp?.();
  }

  /** Whether a wake-up came since the last `take()`. */
  get requested(): boolean {
    return this.#requested;
  }

  /** The loop is about to look for work: wake-ups until now are answered by that look. */
  take(): void {
    this.#requested = false;
  }

  close(): void {
    this.#closed = true;
    this.wake();
  }

  /** Rests up to `ms`; at once when a wake-up is pending or the signal is closed. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.#requested || this.#closed) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.#wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wakeUp = done;
    });
  }
}
