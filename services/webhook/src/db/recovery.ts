import type { Pool } from "@svc/platform/db";
import { DUE_CHANNEL } from "./due-notifications.ts";

/**
 * Makes every failed delivery of a subscription of `orgId` created in [since, until) due now, for
 * one more attempt each (no automatic retries after it, like a single redelivery). Each keeps its
 * id, so the receiver sees its original `webhook-id`. Deliveries that are pending, succeeded or
 * cancelled are left alone, so recovering a window twice never sends a delivery twice at once.
 * The caller has checked the subscription is the organization's and enabled; both are matched
 * again here. Answers how many deliveries were re-queued; other replicas are woken on commit.
 */
export async function recoverFailedDeliveries(pool: Pool, options: { orgId: string; subscriptionId: string; since: Date; until: Date }): Promise<number> {
  const { rows } = await pool.query<{ recovered: number }>(
    `WITH recovered AS (
       UPDATE deliveries d
       SET status = 'pending', next_attempt_at = now(), single_attempt = true, lease_token = NULL, updated_at = now()
       FROM subscriptions s
       WHERE d.subscription_id = $1 AND s.id = d.subscription_id AND s.org_id = $2
         AND s.deleted_at IS NULL AND s.disabled_at IS NULL
         AND d.status = 'failed' AND d.created_at >= $3 AND d.created_at < $4
       RETURNING d.id
     )
     SELECT count(*)::int AS recovered, CASE WHEN count(*) > 0 THEN pg_notify('${DUE_CHANNEL}', '') END AS notified FROM recovered`,
    [options.subscriptionId, options.orgId, options.since, options.until],
  );
  return rows[0]!.recovered;
}
