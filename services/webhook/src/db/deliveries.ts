import { inTransaction, type Pool } from "@svc/platform";
import { storeWebhookDisabledEvent } from "./operational-events.ts";

/** LISTEN/NOTIFY channel on which new or re-scheduled deliveries wake every dispatcher replica. */
export const DUE_CHANNEL = "webhook_deliveries_due";

export type DeliveryStatus = "pending" | "succeeded" | "failed" | "cancelled";

export interface StoredEvent {
  id: string;
  orgId: string;
  type: string;
  /** The exact JSON body every delivery of this event sends. */
  body: string;
}

/**
 * Stores an event and one delivery for each enabled subscription of its organization that wants
 * its type, in one statement (so one transaction). Redelivered events change nothing: the event
 * id is the primary key of `events`, and (event, subscription) is unique in `deliveries`.
 * Returns how many deliveries were created; when any were, other replicas are notified on commit.
 */
export async function storeEventDeliveries(pool: Pool, event: StoredEvent): Promise<number> {
  const { rows } = await pool.query<{ created: number }>(
    `WITH stored_event AS (
       INSERT INTO events (id, org_id, type, body) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING
     ), created AS (
       INSERT INTO deliveries (id, subscription_id, event_id, next_attempt_at)
       SELECT gen_random_uuid(), s.id, $1, now() FROM subscriptions s
       WHERE s.org_id = $2 AND s.deleted_at IS NULL AND s.disabled_at IS NULL AND $3 = ANY (s.events)
       ON CONFLICT (event_id, subscription_id) DO NOTHING
       RETURNING 1
     )
     SELECT count(*)::int AS created, CASE WHEN count(*) > 0 THEN pg_notify('${DUE_CHANNEL}', '') END AS notified FROM created`,
    [event.id, event.orgId, event.type, event.body],
  );
  return rows[0]!.created;
}

/** Stores a one-off event for one subscription (the `webhook.test` event) and its delivery. */
export async function storeSingleDelivery(pool: Pool, event: StoredEvent, subscriptionId: string, deliveryId: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query("INSERT INTO events (id, org_id, type, body) VALUES ($1, $2, $3, $4)", [event.id, event.orgId, event.type, event.body]);
    await client.query("INSERT INTO deliveries (id, subscription_id, event_id, next_attempt_at) VALUES ($1, $2, $3, now())", [
      deliveryId,
      subscriptionId,
      event.id,
    ]);
    await client.query(`SELECT pg_notify('${DUE_CHANNEL}', '')`);
  });
}

/** A delivery a dispatcher has leased: everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  subscriptionId: string;
  leaseToken: string;
  /** Attempts already made before this one. */
  attemptCount: number;
  singleAttempt: boolean;
  url: string;
  secretSealed: Buffer | null;
  /** The rotated-out secret while its grace window lasts: it signs too. */
  previousSecretSealed: Buffer | null;
  subscriptionGone: boolean;
  subscriptionDisabled: boolean;
  eventType: string;
  body: string;
}

/**
 * Leases up to `limit` due deliveries for `leaseMs`. Rows another replica is claiming at the same
 * moment are skipped (FOR UPDATE SKIP LOCKED), and a leased row is not due again until its lease
 * ends, so two replicas never send the same delivery at the same time. `inFlight` is this
 * replica's count of attempts in flight per subscription: a subscription gets at most
 * `perEndpoint - inFlight` new claims, so a slow endpoint cannot take every slot.
 */
export async function claimDueDeliveries(
  pool: Pool,
  options: { limit: number; leaseMs: number; leaseToken: string; perEndpoint: number; inFlight: ReadonlyMap<string, number> },
): Promise<ClaimedDelivery[]> {
  const busy = [...options.inFlight].filter(([, count]) => count > 0);
  const { rows } = await pool.query<{
    id: string;
    subscription_id: string;
    attempt_count: number;
    single_attempt: boolean;
    url: string;
    secret_sealed: Buffer | null;
    previous_secret_sealed: Buffer | null;
    deleted: boolean;
    disabled: boolean;
    type: string;
    body: string;
  }>(
    `WITH budget AS (
       SELECT subscription_id, $4::int - in_flight AS remaining
       FROM unnest($5::uuid[], $6::int[]) AS busy (subscription_id, in_flight)
     ), candidates AS (
       SELECT d.id, d.subscription_id, d.next_attempt_at FROM deliveries d
       WHERE d.status = 'pending' AND d.next_attempt_at <= now()
         AND NOT EXISTS (SELECT 1 FROM budget b WHERE b.subscription_id = d.subscription_id AND b.remaining <= 0)
       ORDER BY d.next_attempt_at
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     ), ranked AS (
       SELECT c.id,
              row_number() OVER (PARTITION BY c.subscription_id ORDER BY c.next_attempt_at, c.id) AS position,
              coalesce(b.remaining, $4::int) AS remaining
       FROM candidates c LEFT JOIN budget b USING (subscription_id)
     )
     UPDATE deliveries d
     SET next_attempt_at = now() + $2::int * interval '1 millisecond', lease_token = $3, updated_at = now()
     FROM ranked r, subscriptions s, events e
     WHERE d.id = r.id AND r.position <= r.remaining AND s.id = d.subscription_id AND e.id = d.event_id
     RETURNING d.id, d.subscription_id, d.attempt_count, d.single_attempt, s.url, s.secret_sealed,
               CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret_sealed END AS previous_secret_sealed,
               s.deleted_at IS NOT NULL AS deleted, s.disabled_at IS NOT NULL AS disabled, e.type, e.body`,
    [options.limit, options.leaseMs, options.leaseToken, options.perEndpoint, busy.map(([id]) => id), busy.map(([, count]) => count)],
  );
  return rows.map((row) => ({
    id: row.id,
    subscriptionId: row.subscription_id,
    leaseToken: options.leaseToken,
    attemptCount: row.attempt_count,
    singleAttempt: row.single_attempt,
    url: row.url,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    subscriptionGone: row.deleted,
    subscriptionDisabled: row.disabled,
    eventType: row.type,
    body: row.body,
  }));
}

/** The attempt as it goes into the log. */
export interface AttemptRecord {
  attemptedAt: Date;
  statusCode?: number;
  latencyMs: number;
  error?: string;
  responseExcerpt: string;
}

const insertAttempt = `INSERT INTO attempts (delivery_id, attempted_at, status_code, latency_ms, error, response_excerpt) VALUES ($1, $2, $3, $4, $5, $6)`;
const attemptValues = (deliveryId: string, attempt: AttemptRecord) => [
  deliveryId,
  attempt.attemptedAt,
  attempt.statusCode ?? null,
  attempt.latencyMs,
  attempt.error ?? null,
  attempt.responseExcerpt,
];

/**
 * Logs successful attempts, completes their deliveries (where this dispatcher still holds the
 * lease) and ends their subscriptions' failure streaks: one statement for the whole batch, so one
 * commit (and one WAL flush) for many deliveries on the hot path.
 */
export async function recordSuccesses(pool: Pool, successes: { delivery: ClaimedDelivery; attempt: AttemptRecord }[]): Promise<void> {
  if (successes.length === 0) return;
  await pool.query(
    `WITH input AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[], $5::int[], $6::int[], $7::text[])
         AS i (delivery_id, lease_token, subscription_id, attempted_at, status_code, latency_ms, response_excerpt)
     ), attempt AS (
       INSERT INTO attempts (delivery_id, attempted_at, status_code, latency_ms, response_excerpt)
       SELECT delivery_id, attempted_at, status_code, latency_ms, response_excerpt FROM input
     ), completed AS (
       UPDATE deliveries d SET status = 'succeeded', next_attempt_at = NULL, lease_token = NULL,
              attempt_count = d.attempt_count + 1, single_attempt = false, updated_at = now()
       FROM input i WHERE d.id = i.delivery_id AND d.lease_token = i.lease_token
     )
     UPDATE subscriptions SET failing_since = NULL
     WHERE id IN (SELECT DISTINCT subscription_id FROM input) AND failing_since IS NOT NULL`,
    [
      successes.map((s) => s.delivery.id),
      successes.map((s) => s.delivery.leaseToken),
      successes.map((s) => s.delivery.subscriptionId),
      successes.map((s) => s.attempt.attemptedAt),
      successes.map((s) => s.attempt.statusCode ?? null),
      successes.map((s) => s.attempt.latencyMs),
      successes.map((s) => s.attempt.responseExcerpt),
    ],
  );
}

export const recordSuccess = (pool: Pool, delivery: ClaimedDelivery, attempt: AttemptRecord) => recordSuccesses(pool, [{ delivery, attempt }]);

export interface FailureDecision {
  /** When to try again; null when the delivery has failed for good. */
  retryInMs: number | null;
  /** Disable the subscription at once with this reason (410 Gone). */
  disableReason?: string;
  /** Disable the subscription when it has been failing without a success for this long. */
  disableAfterMs: number;
}

/**
 * Logs a failed attempt and either re-schedules the delivery or fails it. Extends the
 * subscription's failure streak, and disables the subscription when the decision says so or the
 * streak has lasted `disableAfterMs`; disabling fails its other pending deliveries too (they can
 * be redelivered after re-enabling) and sends `webhook.disabled` to the organization's other
 * endpoints that want it. Answers the reason when it disabled the subscription.
 */
export async function recordFailure(pool: Pool, delivery: ClaimedDelivery, attempt: AttemptRecord, decision: FailureDecision): Promise<string | undefined> {
  return inTransaction(pool, async (client) => {
    await client.query(insertAttempt, attemptValues(delivery.id, attempt));
    const { rows } = await client.query<{ failing_since: Date; disabled: boolean }>(
      `UPDATE subscriptions SET failing_since = coalesce(failing_since, $2) WHERE id = $1
       RETURNING failing_since, (disabled_at IS NOT NULL OR deleted_at IS NOT NULL) AS disabled`,
      [delivery.subscriptionId, attempt.attemptedAt],
    );
    const streak = rows[0];
    let disableReason = decision.disableReason;
    if (!disableReason && streak && attempt.attemptedAt.getTime() - streak.failing_since.getTime() >= decision.disableAfterMs) {
      disableReason = `failing without a successful delivery since ${streak.failing_since.toISOString()}`;
    }
    const retry = decision.retryInMs !== null && !disableReason;
    await client.query(
      `UPDATE deliveries
       SET status = CASE WHEN $3 THEN 'pending' ELSE 'failed' END,
           next_attempt_at = CASE WHEN $3 THEN now() + $4::double precision * interval '1 millisecond' END,
           lease_token = NULL, attempt_count = attempt_count + 1, updated_at = now()
       WHERE id = $1 AND lease_token = $2`,
      [delivery.id, delivery.leaseToken, retry, retry ? decision.retryInMs : 0],
    );
    if (!disableReason || !streak || streak.disabled) return undefined;
    const { rows: disabled } = await client.query<{ org_id: string; url: string; disabled_at: Date; failing_since: Date | null }>(
      "UPDATE subscriptions SET disabled_at = now(), disabled_reason = $2 WHERE id = $1 AND disabled_at IS NULL RETURNING org_id, url, disabled_at, failing_since",
      [delivery.subscriptionId, disableReason],
    );
    if (disabled[0]) {
      const { org_id: orgId, url, disabled_at: disabledAt, failing_since: failingSince } = disabled[0];
      const trigger = decision.disableReason ? "gone" : "continuous_failure";
      await storeWebhookDisabledEvent(client, { id: delivery.subscriptionId, orgId, url, disabledAt, reason: disableReason, trigger, failingSince });
    }
    await client.query(
      `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, lease_token = NULL, updated_at = now()
       WHERE subscription_id = $1 AND status = 'pending'`,
      [delivery.subscriptionId],
    );
    return disableReason;
  });
}

/** Ends a claimed delivery without an attempt: its subscription was deleted or disabled meanwhile. */
export async function settleWithoutAttempt(pool: Pool, delivery: ClaimedDelivery, status: "cancelled" | "failed"): Promise<void> {
  await pool.query(
    "UPDATE deliveries SET status = $3, next_attempt_at = NULL, lease_token = NULL, updated_at = now() WHERE id = $1 AND lease_token = $2",
    [delivery.id, delivery.leaseToken, status],
  );
}

/** Gives leases back unused (shutdown): the deliveries are due again at once, for any replica. */
export async function releaseLeases(pool: Pool, deliveries: ClaimedDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await pool.query(
    `UPDATE deliveries d SET next_attempt_at = now(), lease_token = NULL, updated_at = now()
     FROM unnest($1::uuid[], $2::uuid[]) AS released (id, lease_token)
     WHERE d.id = released.id AND d.lease_token = released.lease_token AND d.status = 'pending'`,
    [deliveries.map((d) => d.id), deliveries.map((d) => d.leaseToken)],
  );
}

/** When the earliest pending delivery (or lease) falls due; null when nothing is pending. */
export async function nextDueAt(pool: Pool): Promise<Date | null> {
  const { rows } = await pool.query<{ due: Date | null }>("SELECT min(next_attempt_at) AS due FROM deliveries WHERE status = 'pending'");
  return rows[0]?.due ?? null;
}
