import { inTransaction, type Pool, type PoolClient } from "@svc/platform";

/** A subscription as callers may see it: never the secret. */
export interface SubscriptionRecord {
  id: string;
  orgId: string;
  url: string;
  events: string[];
  createdAt: Date;
  disabledAt: Date | null;
  disabledReason: string | null;
}

const columns = "id, org_id, url, events, created_at, disabled_at, disabled_reason";

interface SubscriptionRow {
  id: string;
  org_id: string;
  url: string;
  events: string[];
  created_at: Date;
  disabled_at: Date | null;
  disabled_reason: string | null;
}

const toRecord = (row: SubscriptionRow): SubscriptionRecord => ({
  id: row.id,
  orgId: row.org_id,
  url: row.url,
  events: row.events,
  createdAt: row.created_at,
  disabledAt: row.disabled_at,
  disabledReason: row.disabled_reason,
});

/**
 * Stores a new subscription unless the organization already has `maxPerOrg`, in the caller's
 * transaction. The count and the insert run under a per-organization advisory lock (held to the
 * end of that transaction), so concurrent registrations cannot overshoot.
 */
export async function insertSubscription(
  client: PoolClient,
  subscription: { id: string; orgId: string; url: string; events: string[]; secretSealed: Buffer },
  maxPerOrg: number,
): Promise<SubscriptionRecord | "limit-reached"> {
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended('webhook.subscriptions:' || $1, 0))", [subscription.orgId]);
  const { rows: counted } = await client.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM subscriptions WHERE org_id = $1 AND deleted_at IS NULL",
    [subscription.orgId],
  );
  if (counted[0]!.n >= maxPerOrg) return "limit-reached";
  const { rows } = await client.query<SubscriptionRow>(
    `INSERT INTO subscriptions (id, org_id, url, events, secret_sealed) VALUES ($1, $2, $3, $4, $5) RETURNING ${columns}`,
    [subscription.id, subscription.orgId, subscription.url, subscription.events, subscription.secretSealed],
  );
  return toRecord(rows[0]!);
}

export async function listSubscriptions(pool: Pool, orgId: string): Promise<SubscriptionRecord[]> {
  const { rows } = await pool.query<SubscriptionRow>(
    `SELECT ${columns} FROM subscriptions WHERE org_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
    [orgId],
  );
  return rows.map(toRecord);
}

export async function findSubscription(pool: Pool, orgId: string, id: string): Promise<SubscriptionRecord | undefined> {
  const { rows } = await pool.query<SubscriptionRow>(
    `SELECT ${columns} FROM subscriptions WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL`,
    [id, orgId],
  );
  return rows[0] && toRecord(rows[0]);
}

/**
 * Deletes a subscription of `orgId`: marks it deleted, wipes its signing secret and cancels its
 * pending deliveries, in one transaction. Answers false when there is no such subscription.
 */
export async function deleteSubscription(pool: Pool, orgId: string, id: string): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const deleted = await client.query(
      "UPDATE subscriptions SET deleted_at = now(), secret_sealed = NULL WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL",
      [id, orgId],
    );
    if (deleted.rowCount === 0) return false;
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
