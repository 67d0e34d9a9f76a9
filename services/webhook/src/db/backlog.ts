import { fromSnakeCaseRow, type Pool, type SnakeCaseRow } from "@svc/platform/db";

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
  // Counted as double precision (a bigint count would come back as a string); no due delivery is 0 seconds old.
  const { rows } = await pool.query<SnakeCaseRow<DeliveryBacklog>>(
    `SELECT count(*)::double precision AS pending,
            (count(*) FILTER (WHERE next_attempt_at <= now()))::double precision AS due,
            coalesce(extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now())), 0)::double precision AS oldest_due_age_seconds
       FROM deliveries WHERE status = 'pending'`,
  );
  return fromSnakeCaseRow<DeliveryBacklog>(rows[0]!);
}
