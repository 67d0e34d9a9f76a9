import { expiredIdempotencyKeys, purgeInBatches, type BatchedPurge, type Pool, type PurgeOptions } from "@svc/platform/db";

/**
 * Finished deliveries (succeeded, failed, cancelled) last changed more than `$2` days ago, with
 * their attempts, oldest first. Rows a dispatcher or a redelivery request holds are skipped (SKIP
 * LOCKED): the next run takes them. A pending delivery is never removed.
 */
const finishedDeliveries: BatchedPurge = {
  name: "deliveries",
  sql: `WITH batch AS (
          SELECT id FROM deliveries
          WHERE status <> 'pending' AND updated_at < now() - make_interval(days => $2)
          ORDER BY updated_at LIMIT $1
          FOR UPDATE SKIP LOCKED
        ), their_attempts AS (
          DELETE FROM attempts a USING batch WHERE a.delivery_id = batch.id
        )
        DELETE FROM deliveries d USING batch WHERE d.id = batch.id`,
};

/** Events older than `$2` days that no delivery refers to any more (with the bodies they carried). */
const orphanedEvents: BatchedPurge = {
  name: "events",
  sql: `DELETE FROM events WHERE id IN (
          SELECT e.id FROM events e
          WHERE e.created_at < now() - make_interval(days => $2)
            AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)
          ORDER BY e.created_at LIMIT $1
          FOR UPDATE SKIP LOCKED)`,
};

/**
 * The webhook schema's retention: finished deliveries and their attempts after `retentionDays`,
 * then the events left without deliveries, and expired idempotency keys, each in batches (see
 * purgeInBatches). Subscriptions are kept (a deleted one is a tombstone without its secret).
 * Returns how many rows of each kind were removed.
 */
export async function purgeWebhookHistory(pool: Pool, retentionDays: number, options: PurgeOptions): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const purge of [finishedDeliveries, orphanedEvents]) {
    removed[purge.name] = await purgeInBatches(pool, { ...purge, params: [retentionDays] }, options);
  }
  removed[expiredIdempotencyKeys.name] = await purgeInBatches(pool, expiredIdempotencyKeys, options);
  return removed;
}
