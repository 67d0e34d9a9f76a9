import type { Pool } from "@svc/platform/db";

export interface OutboxLag {
  unsentEvents: number;
  /** Age of the oldest event not yet published (0 when every event is). */
  oldestUnsentAgeSeconds: number;
}

/** One indexed read (outbox_unsent_idx): how far the relay is behind the writes. */
export async function readOutboxLag(pool: Pool): Promise<OutboxLag> {
  const { rows } = await pool.query<{ unsent: string; oldest_unsent_age_seconds: number | null }>(
    `SELECT count(*) AS unsent, extract(epoch FROM now() - min(created_at))::double precision AS oldest_unsent_age_seconds
       FROM outbox WHERE sent_at IS NULL`,
  );
  const row = rows[0]!;
  return { unsentEvents: Number(row.unsent), oldestUnsentAgeSeconds: row.oldest_unsent_age_seconds ?? 0 };
}
