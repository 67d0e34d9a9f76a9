import { fromSnakeCaseRow, type Pool, type SnakeCaseRow } from "@svc/platform/db";
import type { CreationCursor, DeliveryView, AttemptView, DeliveryFilter } from "../webhook-stores.ts";
import { DUE_CHANNEL } from "./due-notifications.ts";
import { cursorMicrosOf, timestampOfMicros } from "./creation-cursor.ts";

/** Attempts listed per delivery; older ones stay in the table but are not returned. */
export const ATTEMPTS_SHOWN = 50;

/** The fields of a delivery the query answers as they are (the event's `type` selected as `event_type`). */
type DeliveryColumns = Omit<DeliveryView, "attempts">;

/** A delivery's row: its columns, and its place in the log (the page cursor, microseconds). */
type DeliveryRow = SnakeCaseRow<DeliveryColumns> & { cursor: string };

const deliveryColumns = `d.id, d.subscription_id, d.event_id, e.type AS event_type, d.status, d.created_at, d.next_attempt_at,
  ${cursorMicrosOf("d.created_at")} AS cursor`;

/**
 * One page of a subscription's deliveries, newest first (keyset pagination, stable while new
 * deliveries arrive), narrowed by `filter`. The caller has already checked the subscription
 * belongs to the organization; the organization is matched again here so the query alone cannot
 * leak another's data. The status class looks at each delivery's most recent attempt (what a
 * person triaging failures asks: "which deliveries are failing with 5xx now?").
 */
export async function listDeliveries(
  pool: Pool,
  options: { orgId: string; subscriptionId: string; pageSize: number; after?: CreationCursor; filter?: DeliveryFilter },
): Promise<{ deliveries: DeliveryView[]; next?: CreationCursor }> {
  const filter = options.filter ?? {};
  const classBounds = filter.statusClass && filter.statusClass !== "none" ? Number(filter.statusClass[0]) * 100 : null;
  const { rows } = await pool.query<DeliveryRow>(
    `SELECT ${deliveryColumns}
     FROM deliveries d JOIN events e ON e.id = d.event_id JOIN subscriptions s ON s.id = d.subscription_id
     WHERE d.subscription_id = $1 AND s.org_id = $2
       AND ($3::bigint IS NULL OR (d.created_at, d.id) < (${timestampOfMicros("$3")}, $4::uuid))
       AND ($6::text IS NULL OR d.status = $6)
       AND ($7::timestamptz IS NULL OR d.created_at >= $7)
       AND ($8::timestamptz IS NULL OR d.created_at < $8)
       AND ($9::text IS NULL OR EXISTS (
         SELECT 1 FROM (SELECT a.status_code FROM attempts a WHERE a.delivery_id = d.id ORDER BY a.attempted_at DESC, a.id DESC LIMIT 1) latest
         WHERE CASE WHEN $10::int IS NULL THEN latest.status_code IS NULL ELSE latest.status_code >= $10 AND latest.status_code < $10 + 100 END
       ))
       AND ($11::text IS NULL OR e.meeting_id = $11)
     ORDER BY d.created_at DESC, d.id DESC
     LIMIT $5`,
    [
      options.subscriptionId,
      options.orgId,
      options.after?.createdAtMicros ?? null,
      options.after?.id ?? null,
      options.pageSize + 1,
      filter.status ?? null,
      filter.since ?? null,
      filter.until ?? null,
      filter.statusClass ?? null,
      classBounds,
      filter.meetingId ?? null,
    ],
  );
  const page = rows.slice(0, options.pageSize);
  const deliveries = await withAttempts(pool, page);
  const last = page.at(-1);
  return { deliveries, ...(rows.length > options.pageSize && last ? { next: { createdAtMicros: last.cursor, id: last.id } } : {}) };
}

export async function findDelivery(pool: Pool, orgId: string, subscriptionId: string, deliveryId: string): Promise<DeliveryView | undefined> {
  const { rows } = await pool.query<DeliveryRow>(
    `SELECT ${deliveryColumns}
     FROM deliveries d JOIN events e ON e.id = d.event_id JOIN subscriptions s ON s.id = d.subscription_id
     WHERE d.id = $1 AND d.subscription_id = $2 AND s.org_id = $3`,
    [deliveryId, subscriptionId, orgId],
  );
  return (await withAttempts(pool, rows))[0];
}

async function withAttempts(pool: Pool, rows: DeliveryRow[]): Promise<DeliveryView[]> {
  if (rows.length === 0) return [];
  const { rows: attempts } = await pool.query<SnakeCaseRow<AttemptView> & { delivery_id: string }>(
    `SELECT delivery_id, attempted_at, status_code, latency_ms, error, response_excerpt FROM (
       SELECT a.*, row_number() OVER (PARTITION BY delivery_id ORDER BY attempted_at DESC, id DESC) AS recency
       FROM attempts a WHERE delivery_id = ANY ($1::uuid[])
     ) recent WHERE recency <= ${ATTEMPTS_SHOWN} ORDER BY attempted_at, id`,
    [rows.map((row) => row.id)],
  );
  const byDelivery = new Map<string, AttemptView[]>();
  for (const { delivery_id, ...attempt } of attempts) {
    const list = byDelivery.get(delivery_id) ?? [];
    list.push(fromSnakeCaseRow<AttemptView>(attempt));
    byDelivery.set(delivery_id, list);
  }
  return rows.map(({ cursor: _place, ...delivery }) => ({ ...fromSnakeCaseRow<DeliveryColumns>(delivery), attempts: byDelivery.get(delivery.id) ?? [] }));
}

/**
 * Makes a delivery due now. A pending delivery keeps its retry schedule; a finished one
 * (succeeded or failed) gets one more attempt without automatic retries. A delivery whose attempt
 * is in flight right now is left alone (sending it again concurrently is what leases prevent).
 * Answers whether it was re-scheduled.
 */
export async function scheduleRedelivery(pool: Pool, orgId: string, subscriptionId: string, deliveryId: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `WITH rescheduled AS (
       UPDATE deliveries d
       SET single_attempt = CASE WHEN d.status = 'pending' THEN d.single_attempt ELSE true END,
           status = 'pending', next_attempt_at = now(), updated_at = now()
       FROM subscriptions s
       WHERE d.id = $1 AND d.subscription_id = $2 AND s.id = d.subscription_id AND s.org_id = $3
         AND s.deleted_at IS NULL AND s.disabled_at IS NULL AND d.status <> 'cancelled'
         AND NOT (d.status = 'pending' AND d.lease_token IS NOT NULL AND d.next_attempt_at > now())
       RETURNING d.id
     )
     SELECT pg_notify('${DUE_CHANNEL}', '') FROM rescheduled`,
    [deliveryId, subscriptionId, orgId],
  );
  return (rowCount ?? 0) > 0;
}
