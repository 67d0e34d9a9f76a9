import { fromSnakeCaseRow, type Pool, type SnakeCaseRow } from "@svc/platform/db";

export interface OutboxLag {
  unsentEvents: number;
  /** Age of the oldest event not yet published (0 when every event is). */
  oldestUnsentAgeSeconds: number;
}

/** One indexed read (outbox_unsent_idx): how far the relay is behind the writes. */
export async function readOutboxLag(pool: Pool): Promise<OutboxLag> {
  // Both as double precision, which pg answers as numbers (a count is a bigint, answered as a string).
  const { rows } = await pool.query<SnakeCaseRow<OutboxLag>>(
    `SELECT count(*)::double precision AS unsent_events,
            COALESCE(extract(epoch FROM now() - min(created_at)), 0)::double precision AS oldest_unsent_age_seconds
       FROM outbox WHERE sent_at IS NULL`,
  );
  return fromSnakeCaseRow<OutboxLag>(rows[0]!);
}
