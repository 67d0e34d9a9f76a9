import { LRUCache } from "lru-cache";
import type { Logger } from "@svc/platform";

export interface LastUsedRecorderOptions {
  /** Writes the latest use time of each key, in one statement. */
  write(uses: Map<string, Date>): Promise<void>;
  /** A key's use is recorded at most once per this interval (per process). */
  minIntervalMs?: number;
  /** How often the recorded uses are written. */
  flushIntervalMs: number;
  logger: Logger;
  now?: () => number;
}

export interface LastUsedRecorder {
  record(apiKeyId: string): void;
  /** Writes what is pending now (also called on a timer and at shutdown). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Keeps "last used" of API keys roughly current without a database write per request: a key's
 * use is noted at most once a minute, and the notes are written in one batched UPDATE every
 * `flushIntervalMs`. "Last used" is therefore precise to about a minute, which is what it is for.
 */
export function createLastUsedRecorder(options: LastUsedRecorderOptions): LastUsedRecorder {
  const now = options.now ?? Date.now;
  const minIntervalMs = options.minIntervalMs ?? 60_000;
  // When each key was last noted; bounded, and an evicted key is merely noted once more.
  const lastNoted = new LRUCache<string, number>({ max: 100_000 });
  let pending = new Map<string, Date>();
  let flushing: Promise<void> = Promise.resolve();

  const flush = () => {
    flushing = flushing.then(async () => {
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Map();
      try {
        await options.write(batch);
      } catch (error) {
        options.logger.warn({ err: error, keys: batch.size }, "could not record API key use; will retry");
        for (const [id, at] of batch) if (!pending.has(id)) pending.set(id, at);
      }
    });
    return flushing;
  };
  const timer = setInterval(() => void flush(), options.flushIntervalMs);
  timer.unref();

  return {
    record(apiKeyId) {
      const at = now();
      const last = lastNoted.get(apiKeyId);
      if (last !== undefined && at - last < minIntervalMs) return;
      lastNoted.set(apiKeyId, at);
      pending.set(apiKeyId, new Date(at));
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
