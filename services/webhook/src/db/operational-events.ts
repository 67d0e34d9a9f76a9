import { randomUUID } from "node:crypto";
import type { PoolClient } from "@svc/platform/db";
import { webhookDisabledBody, type DisabledSubscription } from "../payloads.ts";
import { DUE_CHANNEL } from "./due-notifications.ts";

/**
 * Tells the organization that one of its endpoints stopped receiving: stores a `webhook.disabled`
 * event and one delivery to each of its other enabled subscriptions that list that type, in the
 * caller's transaction (the one that disabled the subscription, so the notice exists exactly when
 * the disable does). The event is stored only when some endpoint will receive it. Answers how
 * many deliveries were created; other replicas are woken on commit.
 */
export async function storeWebhookDisabledEvent(client: PoolClient, disabled: DisabledSubscription): Promise<number> {
  const body = webhookDisabledBody(disabled);
  const { rows } = await client.query<{ created: number }>(
    `WITH recipients AS (
       SELECT id FROM subscriptions
       WHERE org_id = $2 AND id <> $5 AND deleted_at IS NULL AND disabled_at IS NULL AND 'webhook.disabled' = ANY (events)
     ), stored_event AS (
       INSERT INTO events (id, org_id, type, body) SELECT $1, $2, 'webhook.disabled', $3 WHERE EXISTS (SELECT 1 FROM recipients)
       RETURNING id
     ), created AS (
       INSERT INTO deliveries (id, subscription_id, event_id, next_attempt_at)
       SELECT gen_random_uuid(), r.id, e.id, now() FROM recipients r, stored_event e
       RETURNING 1
     )
     SELECT count(*)::int AS created, CASE WHEN count(*) > 0 THEN pg_notify($4, '') END AS notified FROM created`,
    [randomUUID(), disabled.orgId, JSON.stringify(body), DUE_CHANNEL, disabled.id],
  );
  return rows[0]!.created;
}
