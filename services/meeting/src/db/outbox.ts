import { inTransaction, type OutgoingEvent, type Pool, type PoolClient } from "@svc/platform";

/** An event on its way to the bus; `id` is the event id consumers deduplicate on. */
export type OutboxEvent = OutgoingEvent;

/** Called by the transaction that changes the meeting, so the event commits with the change. */
export async function insertOutboxEvent(client: PoolClient, event: OutboxEvent): Promise<void> {
  await client.query("INSERT INTO outbox (event_id, topic, key, type, payload) VALUES ($1, $2, $3, $4, $5)", [
    event.id,
    event.topic,
    event.key,
    event.type,
    Buffer.from(event.value),
  ]);
}

export interface Outbox {
  /**
   * Locks up to `limit` unsent rows (oldest first), hands them to `publish`, and marks them sent
   * when it resolves, all in one transaction. Rows another relay has locked are skipped, so two
   * relays never publish one row at the same time; if `publish` fails, the rows stay unsent.
   * Returns how many rows were published.
   */
  publishPending(limit: number, publish: (events: OutboxEvent[]) => Promise<void>): Promise<number>;
  /** Deletes rows sent longer ago than `olderThanMs`; returns how many. */
  deleteSent(olderThanMs: number): Promise<number>;
}

interface OutboxRow {
  id: string;
  event_id: string;
  topic: string;
  key: string;
  type: string;
  payload: Buffer;
}

export function createOutbox(pool: Pool): Outbox {
  return {
    publishPending: (limit, publish) =>
      inTransaction(pool, async (client) => {
        const { rows } = await client.query<OutboxRow>(
          `SELECT id, event_id, topic, key, type, payload FROM outbox
            WHERE sent_at IS NULL ORDER BY id LIMIT $1
            FOR UPDATE SKIP LOCKED`,
          [limit],
        );
        if (rows.length === 0) return 0;
        await publish(rows.map((row) => ({ id: row.event_id, topic: row.topic, key: row.key, type: row.type, value: new Uint8Array(row.payload) })));
        await client.query("UPDATE outbox SET sent_at = now() WHERE id = ANY($1::bigint[])", [rows.map((row) => row.id)]);
        return rows.length;
      }),
    async deleteSent(olderThanMs) {
      const result = await pool.query("DELETE FROM outbox WHERE sent_at < now() - make_interval(secs => $1::double precision / 1000)", [olderThanMs]);
      return result.rowCount ?? 0;
    },
  };
}
