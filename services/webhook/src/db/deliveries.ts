import { type EventContextHeaders } from "@svc/platform";
import { fromSnakeCaseRow, inTransaction, type Pool, type SnakeCaseRow } from "@svc/platform/db";
import { disableDecision, type DisablePolicy } from "../delivery/disable-policy.ts";
import { DEFAULT_PENDING_CAPS, type PendingCaps } from "../delivery/pending-caps.ts";
import { DUE_CHANNEL } from "./due-notifications.ts";
import type { DisabledSubscription } from "../payloads.ts";
import { storeWebhookDisabledEvent } from "./operational-events.ts";
import type { StoredEvent } from "../webhook-stores.ts";

/**
 * Stores events and their deliveries in one statement (so one transaction, one commit for a whole
 * batch of events): for each event, one delivery per enabled subscription of its organization
 * that wants its type, or, with `only`, one to that subscription (a `webhook.test` event, sent
 * once: no automatic retries). An event is stored only when a delivery is created for it, so an
 * event nobody subscribed to (with its attendees' addresses) is never kept. Redelivered events
 * change nothing: the event id is the primary key of `events`, and (event, subscription) is unique
 * in `deliveries`; an event given twice is stored once.
 *
 * An endpoint with `caps.perEndpoint` pending deliveries, or an organization with
 * `caps.perOrganization` over all its endpoints, gets this delivery stored as failed, never sent,
 * with the reason in its attempt log (it can be redelivered once the backlog is gone): one tenant's
 * dead endpoints cannot grow the queue without bound. Within the batch, deliveries count in the
 * order of their events, as if the events had been stored one after another; the counts before it
 * are read without locks, so concurrent batches may overshoot a cap slightly.
 *
 * Returns how many deliveries were created to be sent; when any were, other replicas are notified
 * on commit.
 */
export async function storeDeliveries(
  pool: Pool,
  events: StoredEvent[],
  options: { caps?: PendingCaps; only?: { subscriptionId: string; deliveryId: string } } = {},
): Promise<number> {
  const caps = options.caps ?? DEFAULT_PENDING_CAPS;
  const seen = new Set<string>();
  const distinct = events.filter((event) => !seen.has(event.id) && seen.add(event.id));
  if (distinct.length === 0) return 0;
  const { rows } = await pool.query<{ created: number }>(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[]) WITH ORDINALITY AS i (event_id, org_id, type, body, context_headers, ord)
     ), matching AS (
       SELECT i.event_id, i.ord, s.id AS subscription_id, s.org_id
       FROM input i JOIN subscriptions s ON s.org_id = i.org_id AND s.deleted_at IS NULL AND s.disabled_at IS NULL
         AND CASE WHEN $6::uuid IS NULL THEN i.type = ANY (s.events) ELSE s.id = $6::uuid END
     ), new_pairs AS (
       -- A redelivered event's deliveries exist: they are neither counted against a cap nor stored again.
       SELECT m.* FROM matching m
       WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = m.event_id AND d.subscription_id = m.subscription_id)
     ), endpoint_pending AS (
       SELECT e.subscription_id, (SELECT count(*) FROM deliveries d WHERE d.subscription_id = e.subscription_id AND d.status = 'pending') AS pending
       FROM (SELECT DISTINCT subscription_id FROM new_pairs) e
     ), organization_pending AS (
       SELECT o.org_id, (SELECT count(*) FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id
                         WHERE s.org_id = o.org_id AND d.status = 'pending') AS pending
       FROM (SELECT DISTINCT org_id FROM new_pairs) o
     ), endpoint_capped AS (
       -- The deliveries before this one in the batch to its endpoint count as pending.
       SELECT p.event_id, p.ord, p.subscription_id, p.org_id,
              ep.pending + row_number() OVER (PARTITION BY p.subscription_id ORDER BY p.ord) - 1 >= $7 AS capped
       FROM new_pairs p JOIN endpoint_pending ep USING (subscription_id)
     ), decided AS (
       -- And so do the organization's before it, but those its endpoint's cap kept from being sent.
       SELECT c.event_id, c.subscription_id,
              c.capped OR op.pending + row_number() OVER (PARTITION BY c.org_id, c.capped ORDER BY c.ord, c.subscription_id) - 1 >= $8 AS capped
       FROM endpoint_capped c JOIN organization_pending op USING (org_id)
     ), stored_events AS (
       INSERT INTO events (id, org_id, type, body, context_headers)
       SELECT i.event_id, i.org_id, i.type, i.body, i.context_headers FROM input i WHERE EXISTS (SELECT 1 FROM matching m WHERE m.event_id = i.event_id)
       ON CONFLICT (id) DO NOTHING
     ), created AS (
       INSERT INTO deliveries (id, subscription_id, event_id, status, next_attempt_at, single_attempt)
       SELECT coalesce($9::uuid, gen_random_uuid()), d.subscription_id, d.event_id,
              CASE WHEN d.capped THEN 'failed' ELSE 'pending' END, CASE WHEN d.capped THEN NULL ELSE now() END, $6::uuid IS NOT NULL
       FROM decided d
       ON CONFLICT (event_id, subscription_id) DO NOTHING
       RETURNING id, status
     ), capped_note AS (
       INSERT INTO attempts (delivery_id, attempted_at, latency_ms, error)
       SELECT id, now(), 0, $10 FROM created WHERE status = 'failed'
     )
     SELECT count(*)::int AS created, CASE WHEN count(*) > 0 THEN pg_notify('${DUE_CHANNEL}', '') END AS notified
     FROM created WHERE status = 'pending'`,
    [
      distinct.map((event) => event.id),
      distinct.map((event) => event.orgId),
      distinct.map((event) => event.type),
      distinct.map((event) => event.body),
      distinct.map((event) => (event.context && Object.keys(event.context).length > 0 ? JSON.stringify(event.context) : null)),
      options.only?.subscriptionId ?? null,
      caps.perEndpoint,
      caps.perOrganization,
      options.only?.deliveryId ?? null,
      `not sent: the endpoint already had ${caps.perEndpoint} deliveries pending, or the organization ${caps.perOrganization}; redeliver it once they are done`,
    ],
  );
  return rows[0]!.created;
}

/** The deliveries of events from `meeting.events`, a batch in one statement (see storeDeliveries). */
export const storeEventDeliveries = (pool: Pool, events: StoredEvent[], caps?: PendingCaps) => storeDeliveries(pool, events, caps ? { caps } : {});

/**
 * A one-off event for one subscription (the `webhook.test` event) and its single-attempt delivery.
 * Stores nothing when the subscription was deleted or disabled meanwhile; at a pending cap the
 * delivery is stored as failed.
 */
export async function storeSingleDelivery(pool: Pool, event: StoredEvent, subscriptionId: string, deliveryId: string, caps?: PendingCaps): Promise<void> {
  await storeDeliveries(pool, [event], { ...(caps ? { caps } : {}), only: { subscriptionId, deliveryId } });
}

/** A delivery a dispatcher has leased: everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  subscriptionId: string;
  orgId: string;
  leaseToken: string;
  /** Attempts already made before this one. */
  attemptCount: number;
  singleAttempt: boolean;
  url: string;
  secretSealed: Buffer | null;
  /** The rotated-out secret while its grace window lasts: it signs too. */
  previousSecretSealed: Buffer | null;
  /** The endpoint's delivery rate limit; null: none. */
  rateLimitPerSecond: number | null;
  subscriptionGone: boolean;
  subscriptionDisabled: boolean;
  eventType: string;
  body: string;
  /** The request and trace the event arrived in; null when it carried none. */
  context: EventContextHeaders | null;
}

export interface ClaimOptions {
  limit: number;
  leaseMs: number;
  leaseToken: string;
  /** Attempts in flight at once to one subscription (one while its circuit is half-open). */
  perEndpoint: number;
  /** Attempts in flight at once to one organization's endpoints. */
  perOrganization: number;
  /** This replica's attempts in flight, per subscription and per organization. */
  inFlight: ReadonlyMap<string, number>;
  inFlightByOrganization?: ReadonlyMap<string, number>;
}

const busyLists = (counts: ReadonlyMap<string, number> | undefined) => {
  const busy = [...(counts ?? [])].filter(([, count]) => count > 0);
  return [busy.map(([key]) => key), busy.map(([, count]) => count)] as const;
};

/**
 * Leases up to `limit` due deliveries for `leaseMs`, fairly: every subscription with due
 * deliveries offers its oldest (as many as its endpoint and its organization may still have in
 * flight), and the batch takes organizations in turns (every organization's first, then every
 * organization's second, ...; within an organization its endpoints in turns), so one tenant's
 * backlog cannot crowd out another's next delivery. Subscriptions whose circuit is open are
 * skipped; a half-open one (circuit_open_until passed) gets one probe at a time.
 *
 * Rows another replica is claiming at the same moment are skipped (FOR UPDATE SKIP LOCKED), and a
 * leased row is not due again until its lease ends, so two replicas never send the same delivery
 * at the same time. The in-flight budgets are this replica's own.
 */
export async function claimDueDeliveries(pool: Pool, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  const [busyEndpoints, busyEndpointCounts] = busyLists(options.inFlight);
  const [busyOrganizations, busyOrganizationCounts] = busyLists(options.inFlightByOrganization);
  const { rows } = await pool.query<SnakeCaseRow<Omit<ClaimedDelivery, "leaseToken">>>(
    `WITH endpoint_busy AS (
       SELECT * FROM unnest($5::uuid[], $6::int[]) AS b (subscription_id, in_flight)
     ), organization_busy AS (
       SELECT * FROM unnest($7::text[], $8::int[]) AS b (org_id, in_flight)
     ), due_endpoints AS (
       SELECT s.id AS subscription_id, s.org_id,
              greatest(0, $9::int - coalesce(ob.in_flight, 0)) AS organization_room,
              greatest(0, least(CASE WHEN s.circuit_open_until IS NULL THEN $4::int ELSE 1 END - coalesce(eb.in_flight, 0),
                                $9::int - coalesce(ob.in_flight, 0), $1::int)) AS room
       FROM (SELECT DISTINCT subscription_id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= now()) due
       JOIN subscriptions s ON s.id = due.subscription_id
       LEFT JOIN endpoint_busy eb ON eb.subscription_id = s.id
       LEFT JOIN organization_busy ob ON ob.org_id = s.org_id
       WHERE s.circuit_open_until IS NULL OR s.circuit_open_until <= now()
     ), candidates AS (
       SELECT c.id, c.next_attempt_at, e.subscription_id, e.org_id, e.organization_room
       FROM due_endpoints e
       CROSS JOIN LATERAL (
         SELECT d.id, d.next_attempt_at FROM deliveries d
         WHERE d.subscription_id = e.subscription_id AND d.status = 'pending' AND d.next_attempt_at <= now()
         ORDER BY d.next_attempt_at
         LIMIT e.room
         FOR UPDATE SKIP LOCKED
       ) c
     ), endpoint_turns AS (
       SELECT *, row_number() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, id) AS endpoint_turn FROM candidates
     ), organization_turns AS (
       SELECT *, row_number() OVER (PARTITION BY org_id ORDER BY endpoint_turn, next_attempt_at, id) AS organization_turn FROM endpoint_turns
     ), chosen AS (
       SELECT id FROM organization_turns WHERE organization_turn <= organization_room
       ORDER BY organization_turn, next_attempt_at
       LIMIT $1
     )
     UPDATE deliveries d
     SET next_attempt_at = now() + $2::int * interval '1 millisecond', lease_token = $3, updated_at = now()
     FROM chosen c, subscriptions s, events e
     WHERE d.id = c.id AND s.id = d.subscription_id AND e.id = d.event_id
     RETURNING d.id, d.subscription_id, s.org_id, d.attempt_count, d.single_attempt, s.url, s.secret_sealed,
               CASE WHEN s.previous_secret_expires_at > now() THEN s.previous_secret_sealed END AS previous_secret_sealed,
               s.rate_limit_per_second, s.deleted_at IS NOT NULL AS subscription_gone, s.disabled_at IS NOT NULL AS subscription_disabled,
               e.type AS event_type, e.body, e.context_headers AS context`,
    [
      options.limit,
      options.leaseMs,
      options.leaseToken,
      options.perEndpoint,
      busyEndpoints,
      busyEndpointCounts,
      busyOrganizations,
      busyOrganizationCounts,
      options.perOrganization,
    ],
  );
  // The lease token is this claim's, not a column.
  return rows.map((row) => ({ ...fromSnakeCaseRow<Omit<ClaimedDelivery, "leaseToken">>(row), leaseToken: options.leaseToken }));
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
 * lease) and ends their subscriptions' failure and timeout streaks (closing an open circuit): one statement for the whole batch, so one
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
     UPDATE subscriptions SET failing_since = NULL, consecutive_timeouts = 0, circuit_open_until = NULL
     WHERE id IN (SELECT DISTINCT subscription_id FROM input)
       AND (failing_since IS NOT NULL OR consecutive_timeouts > 0 OR circuit_open_until IS NOT NULL)`,
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

export interface FailureDecision extends DisablePolicy {
  /** When to try again; null when the delivery has failed for good. */
  retryInMs: number | null;
  /** The attempt timed out: it extends the endpoint's timeout streak (any other outcome ends it). */
  timedOut: boolean;
  circuitBreaker: CircuitBreakerPolicy;
}

/** After `consecutiveTimeouts` timeouts in a row, no attempt to the endpoint for `openMs`. */
export interface CircuitBreakerPolicy {
  consecutiveTimeouts: number;
  openMs: number;
}

export interface FailureRecorded {
  /** The reason, when this failure disabled the subscription. */
  disabledFor?: string;
  /** This failure opened (or re-opened) the endpoint's circuit. */
  circuitOpened: boolean;
}

/** What disabling a subscription reads back from its row for the `webhook.disabled` event. */
type DisabledColumns = Pick<DisabledSubscription, "orgId" | "url" | "disabledAt" | "failingSince">;

/**
 * Logs a failed attempt and either re-schedules the delivery or fails it. Extends the
 * subscription's failure streak, and disables the subscription when the disable policy says so
 * (disableDecision: 410 Gone, or a streak that has lasted `disableAfterMs`); disabling fails its other pending deliveries too (they can
 * be redelivered after re-enabling) and sends `webhook.disabled` to the organization's other
 * endpoints that want it. Answers the reason when it disabled the subscription.
 */
export async function recordFailure(pool: Pool, delivery: ClaimedDelivery, attempt: AttemptRecord, decision: FailureDecision): Promise<FailureRecorded> {
  return inTransaction(pool, async (client) => {
    await client.query(insertAttempt, attemptValues(delivery.id, attempt));
    const { rows } = await client.query<{ failing_since: Date; disabled: boolean; circuit_opened: boolean }>(
      `UPDATE subscriptions
       SET failing_since = coalesce(failing_since, $2),
           consecutive_timeouts = CASE WHEN $3 THEN consecutive_timeouts + 1 ELSE 0 END,
           circuit_open_until = CASE WHEN NOT $3 THEN NULL
                                     WHEN consecutive_timeouts + 1 >= $4 THEN now() + $5::double precision * interval '1 millisecond'
                                     ELSE circuit_open_until END
       WHERE id = $1
       RETURNING failing_since, (disabled_at IS NOT NULL OR deleted_at IS NOT NULL) AS disabled, coalesce(circuit_open_until > now(), false) AS circuit_opened`,
      [delivery.subscriptionId, attempt.attemptedAt, decision.timedOut, decision.circuitBreaker.consecutiveTimeouts, decision.circuitBreaker.openMs],
    );
    const streak = rows[0];
    const disable = disableDecision(attempt, streak?.failing_since ?? null, decision);
    const retry = decision.retryInMs !== null && !disable;
    await client.query(
      `UPDATE deliveries
       SET status = CASE WHEN $3 THEN 'pending' ELSE 'failed' END,
           next_attempt_at = CASE WHEN $3 THEN now() + $4::double precision * interval '1 millisecond' END,
           lease_token = NULL, attempt_count = attempt_count + 1, updated_at = now()
       WHERE id = $1 AND lease_token = $2`,
      [delivery.id, delivery.leaseToken, retry, retry ? decision.retryInMs : 0],
    );
    const circuitOpened = streak?.circuit_opened ?? false;
    if (!disable || !streak || streak.disabled) return { circuitOpened };
    const { rows: disabled } = await client.query<SnakeCaseRow<DisabledColumns>>(
      "UPDATE subscriptions SET disabled_at = now(), disabled_reason = $2 WHERE id = $1 AND disabled_at IS NULL RETURNING org_id, url, disabled_at, failing_since",
      [delivery.subscriptionId, disable.reason],
    );
    if (disabled[0]) {
      await storeWebhookDisabledEvent(client, {
        ...fromSnakeCaseRow<DisabledColumns>(disabled[0]),
        id: delivery.subscriptionId,
        reason: disable.reason,
        trigger: disable.trigger,
      });
    }
    await client.query(
      `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, lease_token = NULL, updated_at = now()
       WHERE subscription_id = $1 AND status = 'pending'`,
      [delivery.subscriptionId],
    );
    return { disabledFor: disable.reason, circuitOpened };
  });
}

/** Ends a claimed delivery without an attempt: its subscription was deleted or disabled meanwhile. */
export async function settleWithoutAttempt(pool: Pool, delivery: ClaimedDelivery, status: "cancelled" | "failed"): Promise<void> {
  await pool.query("UPDATE deliveries SET status = $3, next_attempt_at = NULL, lease_token = NULL, updated_at = now() WHERE id = $1 AND lease_token = $2", [
    delivery.id,
    delivery.leaseToken,
    status,
  ]);
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

/**
 * When the earliest pending delivery (or lease) falls due, or an open circuit half-opens; null when
 * nothing is pending. Deliveries behind an open circuit are not due until it half-opens.
 */
export async function nextDueAt(pool: Pool): Promise<Date | null> {
  const { rows } = await pool.query<{ due: Date | null }>(
    `SELECT least(
       (SELECT d.next_attempt_at FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id
        WHERE d.status = 'pending' AND (s.circuit_open_until IS NULL OR s.circuit_open_until <= now())
        ORDER BY d.next_attempt_at LIMIT 1),
       (SELECT min(circuit_open_until) FROM subscriptions WHERE circuit_open_until > now())) AS due`,
  );
  return rows[0]?.due ?? null;
}
