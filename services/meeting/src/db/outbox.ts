import { randomUUID } from "node:crypto";
import { captureEventContext, type EventContextHeaders } from "@svc/platform";
import { fromSnakeCaseRow, inTransaction, type BatchedPurge, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import { type OutgoingEvent } from "@svc/platform/events";

/** An event on its way to the bus; `id` is the event id consumers deduplicate on. */
export type OutboxEvent = OutgoingEvent;

/**
 * Called by the transaction that changes the meeting, so the event commits with the change. The
 * request id and trace of that transaction go with it (see captureEventContext).
 */
export async function insertOutboxEvent(client: PoolClient, event: OutboxEvent): Promise<void> {
  const context = captureEventContext();
  await client.query("INSERT INTO outbox (event_id, topic, key, type, payload, context_headers) VALUES ($1, $2, $3, $4, $5, $6)", [
    event.id,
    event.topic,
    event.key,
    event.type,
    Buffer.from(event.value),
    Object.keys(context).length > 0 ? context : null,
  ]);
}

export interface Outbox {
  /**
   * Leases up to `limit` unsent rows (oldest first) in a short transaction, hands them to
   * `publish` outside any transaction, and marks them sent when it resolves, if the lease is still
   * this relay's. While leased, no other relay takes them; if `publish` fails the lease is given
   * back; if this relay dies, the lease expires and another relay publishes them again (consumers
   * deduplicate on the event id). Returns how many rows this call marked sent.
   */
  publishPending(limit: number, publish: (events: OutboxEvent[]) => Promise<void>): Promise<number>;
}

/** Longer than a publish takes even while the broker retries (kafka-event-bus.ts bounds them). */
const DEFAULT_LEASE_MS = 60_000;

/** The fields of an event the table holds as they are (its `event_id` selected as `id`). */
type EventColumns = Omit<OutboxEvent, "value" | "context">;

/** A leased row: the event, and the row's place in the outbox (`seq`, a bigint, which pg answers as a string). */
type LeasedRow = SnakeCaseRow<EventColumns> & { seq: string; payload: Buffer; context_headers: EventContextHeaders | null };

/** By hand: the payload (a Buffer) goes on as the plain bytes the bus takes, and a row without context headers gives none. */
const toEvent = ({ seq: _place, payload, context_headers, ...columns }: LeasedRow): OutboxEvent => ({
  ...fromSnakeCaseRow<EventColumns>(columns),
  value: new Uint8Array(payload),
  ...(context_headers ? { context: context_headers } : {}),
});

export function createOutbox(pool: Pool, options: { leaseMs?: number } = {}): Outbox {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;

  /**
   * Claims are serialised by a transaction-scoped advisory lock (they take milliseconds), so a
   * claim always sees every other relay's leases: a meeting's later event is not taken while an
   * earlier one is leased to another relay, which keeps each meeting's events in order.
   */
  const claim = (limit: number, leaseToken: string) =>
    inTransaction(pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended('meeting.outbox.claim', 0))");
      const { rows } = await client.query<LeasedRow>(
        `WITH claimable AS (
           SELECT o.id FROM outbox o
           WHERE o.sent_at IS NULL AND (o.leased_until IS NULL OR o.leased_until <= now())
             AND NOT EXISTS (
               SELECT 1 FROM outbox earlier
               WHERE earlier.key = o.key AND earlier.sent_at IS NULL AND earlier.id < o.id AND earlier.leased_until > now())
           ORDER BY o.id LIMIT $1
         )
         UPDATE outbox o SET lease_token = $2, leased_until = now() + $3::int * interval '1 millisecond'
         FROM claimable c WHERE o.id = c.id
         RETURNING o.id AS seq, o.event_id AS id, o.topic, o.key, o.type, o.payload, o.context_headers`,
        [limit, leaseToken, leaseMs],
      );
      return rows.sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq)));
    });

  return {
    async publishPending(limit, publish) {
      const leaseToken = randomUUID();
      const rows = await claim(limit, leaseToken);
      if (rows.length === 0) return 0;
      const ids = rows.map((row) => row.seq);
      try {
        await publish(rows.map(toEvent));
      } catch (error) {
        // Give the rows back at once, so this or another relay retries them after its backoff.
        await pool
          .query("UPDATE outbox SET lease_token = NULL, leased_until = NULL WHERE id = ANY($1::bigint[]) AND lease_token = $2", [ids, leaseToken])
          .catch(() => undefined); // the lease expires by itself
        throw error;
      }
      const { rowCount } = await pool.query(
        "UPDATE outbox SET sent_at = now(), lease_token = NULL, leased_until = NULL WHERE id = ANY($1::bigint[]) AND lease_token = $2 AND sent_at IS NULL",
        [ids, leaseToken],
      );
      return rowCount ?? 0;
    },
  };
}

/** Sent rows older than `$2` days (kept that long for inspection). For `purgeInBatches`. */
export const sentOutboxRows: BatchedPurge = {
  name: "outbox",
  sql: `DELETE FROM outbox WHERE id IN (
          SELECT id FROM outbox WHERE sent_at < now() - make_interval(days => $2) ORDER BY sent_at LIMIT $1)`,
};
