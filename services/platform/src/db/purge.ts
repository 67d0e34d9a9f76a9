import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../logger.ts";
import { startPeriodicTask } from "../periodic-task.ts";
import type { Pool } from "./pool.ts";

export interface BatchedPurge {
  /** Names the purge in logs and figures. */
  name: string;
  /**
   * One DELETE of at most `$1` rows (the batch size; further parameters follow it), returning
   * how many it deleted. It runs on its own (autocommit), so the row locks of a batch are held
   * only for that one statement.
   */
  sql: string;
  params?: unknown[];
}

export interface PurgeOptions {
  batchSize: number;
  /** Rest between batches, so a large backlog is removed without crowding out live traffic. */
  pauseMs?: number;
  /** Stops between batches (shutdown). */
  signal?: AbortSignal;
  /** Told how long each batch took (its locks were held at most that long). */
  onBatch?: (batch: { name: string; deleted: number; durationMs: number }) => void;
}

/**
 * Deletes what `purge.sql` selects, batch after batch, until a batch comes back short: a backlog
 * of millions of rows is never one long transaction holding locks and bloating the WAL at once.
 * Returns the total deleted.
 */
export async function purgeInBatches(pool: Pool, purge: BatchedPurge, options: PurgeOptions): Promise<number> {
  let total = 0;
  for (;;) {
    if (options.signal?.aborted) return total;
    const started = performance.now();
    const { rowCount } = await pool.query(purge.sql, [options.batchSize, ...(purge.params ?? [])]);
    const deleted = rowCount ?? 0;
    options.onBatch?.({ name: purge.name, deleted, durationMs: performance.now() - started });
    total += deleted;
    if (deleted < options.batchSize) return total;
    if (options.pauseMs) await sleep(options.pauseMs, undefined, options.signal ? { signal: options.signal } : {}).catch(() => undefined);
  }
}

/** Rows a retention run handles per statement, and the rest between statements. */
export const RETENTION_BATCH = { batchSize: 1_000, pauseMs: 20 } as const;
/** How often each service runs its retention purges. */
export const RETENTION_INTERVAL_MS = 10 * 60_000;

/**
 * A service's retention purges, run every RETENTION_INTERVAL_MS until stopped: `purge` removes a
 * run's rows in RETENTION_BATCH batches and answers how many of each kind; a run that removed any
 * is logged with `describe`'s fields and message. Stopping ends the current run between batches.
 */
export function startRetention(
  purge: (options: PurgeOptions) => Promise<Record<string, number>>,
  logger: Logger,
  describe: { message: string; fields?: Record<string, unknown> },
): { stop(): Promise<void> } {
  const stopping = new AbortController();
  const task = startPeriodicTask(
    "retention",
    RETENTION_INTERVAL_MS,
    async () => {
      const removed = await purge({ ...RETENTION_BATCH, signal: stopping.signal });
      if (Object.values(removed).some((count) => count > 0)) logger.info({ removed, ...describe.fields }, describe.message);
    },
    logger,
  );
  return {
    stop: () => {
      stopping.abort();
      return task.stop();
    },
  };
}
