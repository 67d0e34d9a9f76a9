import { deleteIdempotentReplies, fromSnakeCaseRow, inTransaction, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import { cursorMicrosOf, timestampOfMicros } from "./creation-cursor.ts";
import type { CreationCursor, SubscriptionRecord, SubscriptionChanges } from "../webhook-stores.ts";

// The previous secret's expiry only while it is in force (the sweep wipes it a little later).
const columns = `id, org_id, url, events, created_at, disabled_at, disabled_reason, description, rate_limit_per_second,
  CASE WHEN previous_secret_expires_at > now() THEN previous_secret_expires_at END AS previous_secret_expires_at`;

type SubscriptionRow = SnakeCaseRow<SubscriptionRecord>;
const toRecord = fromSnakeCaseRow<SubscriptionRecord>;

/**
 * Stores a new subscription unless the organization already has `maxPerOrg`, in the caller's
 * transaction. The count and the insert run under a per-organization advisory lock (held to the
 * end of that transaction), so concurrent registrations cannot overshoot.
 */
export async function insertSubscription(
  client: PoolClient,
  subscription: { id: string; orgId: string; url: string; events: string[]; secretSealed: Buffer; description?: string; rateLimitPerSecond?: number | null },
  maxPerOrg: number,
): Promise<SubscriptionRecord | "limit-reached"> {
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended('webhook.subscriptions:' || $1, 0))", [subscription.orgId]);
  const { rows: counted } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM subscriptions WHERE org_id = $1 AND deleted_at IS NULL", [
    subscription.orgId,
  ]);
  if (counted[0]!.n >= maxPerOrg) return "limit-reached";
  const { rows } = await client.query<SubscriptionRow>(
    `INSERT INTO subscriptions (id, org_id, url, events, secret_sealed, description, rate_limit_per_second)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${columns}`,
    [
      subscription.id,
      subscription.orgId,
      subscription.url,
      subscription.events,
      subscription.secretSealed,
      subscription.description ?? "",
      subscription.rateLimitPerSecond ?? null,
    ],
  );
  return toRecord(rows[0]!);
}

export async function listSubscriptions(pool: Pool, orgId: string): Promise<SubscriptionRecord[]> {
  const { rows } = await pool.query<SubscriptionRow>(`SELECT ${columns} FROM subscriptions WHERE org_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`, [
    orgId,
  ]);
  return rows.map(toRecord);
}

/**
 * One page of the organization's subscriptions, oldest first, after `after` (keyset pagination on
 * the `subscriptions_by_org` index, so a page costs the same however many there are).
 */
export async function listSubscriptionsPage(
  pool: Pool,
  orgId: string,
  page: { size: number; after?: CreationCursor },
): Promise<{ subscriptions: SubscriptionRecord[]; next?: CreationCursor }> {
  const { rows } = await pool.query<SubscriptionRow & { cursor: string }>(
    `SELECT ${columns}, ${cursorMicrosOf("created_at")} AS cursor FROM subscriptions
     WHERE org_id = $1 AND deleted_at IS NULL
       AND ($2::bigint IS NULL OR (created_at, id) > (${timestampOfMicros("$2")}, $3::uuid))
     ORDER BY created_at, id
     LIMIT $4`,
    [orgId, page.after?.createdAtMicros ?? null, page.after?.id ?? null, page.size + 1],
  );
  const shown = rows.slice(0, page.size);
  const last = shown.at(-1);
  return {
    subscriptions: shown.map(({ cursor: _cursor, ...row }) => toRecord(row)),
    ...(rows.length > page.size && last ? { next: { createdAtMicros: last.cursor, id: last.id } } : {}),
  };
}

export const findSubscription = (pool: Pool, orgId: string, id: string) => findSubscriptionWith(pool, orgId, id);

/** The same, on a pool or inside a transaction. */
export async function findSubscriptionWith(db: Pool | PoolClient, orgId: string, id: string): Promise<SubscriptionRecord | undefined> {
  const { rows } = await db.query<SubscriptionRow>(`SELECT ${columns} FROM subscriptions WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL`, [id, orgId]);
  return rows[0] && toRecord(rows[0]);
}

/**
 * Deletes a subscription of `orgId`: marks it deleted, wipes its signing secrets (a rotated-out one
 * too) and cancels its pending deliveries, in one transaction. Answers false when there is no such subscription.
 */
export async function deleteSubscription(pool: Pool, orgId: string, id: string): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const deleted = await client.query(
      `UPDATE subscriptions SET deleted_at = now(), secret_sealed = NULL, previous_secret_sealed = NULL, previous_secret_expires_at = NULL
       WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL`,
      [id, orgId],
    );
    if (deleted.rowCount === 0) return false;
    // The idempotent replies of its creation and secret rotations hold its signing secrets.
    await deleteIdempotentReplies(client, orgId, id);
    await client.query(
      `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, lease_token = NULL, updated_at = now()
       WHERE subscription_id = $1 AND status = 'pending'`,
      [id],
    );
    return true;
  });
}

/** Clears the disabled state (and the failure streak) of a subscription of `orgId`. */
export async function enableSubscription(pool: Pool, orgId: string, id: string): Promise<SubscriptionRecord | undefined> {
  const { rows } = await pool.query<SubscriptionRow>(
    `UPDATE subscriptions SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
     WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL RETURNING ${columns}`,
    [id, orgId],
  );
  return rows[0] && toRecord(rows[0]);
}

/**
 * Applies `changes` to a subscription of `orgId` in one transaction. Disabling fails its pending
 * deliveries (as an automatic disable does; they can be recovered after re-enabling); enabling
 * clears the failure streak. Disabling a disabled subscription keeps its original time and reason.
 */
export async function updateSubscription(pool: Pool, orgId: string, id: string, changes: SubscriptionChanges): Promise<SubscriptionRecord | undefined> {
  return inTransaction(pool, async (client) => {
    const disable = changes.disabled ? changes.disabled.reason : null;
    const { rows } = await client.query<SubscriptionRow>(
      `UPDATE subscriptions SET
         url = coalesce($3, url),
         events = coalesce($4, events),
         description = coalesce($5, description),
         rate_limit_per_second = CASE WHEN $6 THEN $7::int ELSE rate_limit_per_second END,
         disabled_at = CASE WHEN $8::text IS NOT NULL THEN coalesce(disabled_at, now()) WHEN $9 THEN NULL ELSE disabled_at END,
         disabled_reason = CASE WHEN $8::text IS NOT NULL THEN coalesce(disabled_reason, $8) WHEN $9 THEN NULL ELSE disabled_reason END,
         failing_since = CASE WHEN $9 THEN NULL ELSE failing_since END
       WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL RETURNING ${columns}`,
      [
        id,
        orgId,
        changes.url ?? null,
        changes.events ?? null,
        changes.description ?? null,
        changes.rateLimitPerSecond !== undefined,
        changes.rateLimitPerSecond ?? null,
        disable,
        changes.disabled === false,
      ],
    );
    if (!rows[0]) return undefined;
    if (disable !== null) {
      await client.query(
        `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, lease_token = NULL, updated_at = now()
         WHERE subscription_id = $1 AND status = 'pending'`,
        [id],
      );
    }
    return toRecord(rows[0]);
  });
}
