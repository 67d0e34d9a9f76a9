import type { Pool } from "@svc/platform/db";

export interface DeliveryBacklog {
  /** Deliveries not yet settled: due, waiting for a retry, or being attempted. */
  pending: number;
  /** Pending deliveries whose time has come and that no dispatcher holds. */
  due: number;
  /** How long the longest-waiting due delivery has been due (0 when none is). */
  oldestDueAgeSeconds: number;
}

/** One indexed read (deliveries_due): how much delivery work waits, and for how long. */
export async function readDeliveryBacklog(pool: Pool): Promise<DeliveryBacklog> {
  const { rows } = await pool.query<{ pending: string; due: string; oldest_due_age_seconds: number | null }>(
    `SELECT count(*) AS pending,
            count(*) FILTER (WHERE next_attempt_at <= now()) AS due,
            extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now()))::double precision AS oldest_due_age_seconds
       FROM deliveries WHERE status = 'pending'`,
  );
  const row = rows[0]!;
  return { pending: Number(row.pending), due: Number(row.due), oldestDueAgeSeconds: row.oldest_due_age_seconds ?? 0 };
}
