import type { Pool, PoolClient } from "@svc/platform/db";
import { findSubscriptionWith } from "./subscriptions.ts";
import type { SubscriptionRecord } from "../webhook-stores.ts";

/**
 * Replaces a subscription's signing secret with `newSecretSealed`, in the caller's transaction.
 * The replaced secret (still sealed, bound to the same id) keeps signing beside the new one for
 * `graceMs`, so receivers can switch without losing a delivery; with no grace it is dropped at
 * once. Rotating again within the window replaces the previous secret with the one just retired:
 * only the latest two secrets ever sign. Answers undefined when there is no such subscription.
 */
export async function rotateSigningSecret(
  client: PoolClient,
  options: { orgId: string; id: string; newSecretSealed: Buffer; graceMs: number },
): Promise<SubscriptionRecord | undefined> {
  const { rowCount } = await client.query(
    `UPDATE subscriptions SET
       previous_secret_sealed = CASE WHEN $4::bigint > 0 THEN secret_sealed END,
       previous_secret_expires_at = CASE WHEN $4::bigint > 0 THEN now() + $4::bigint * interval '1 millisecond' END,
       secret_sealed = $3
     WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL`,
    [options.id, options.orgId, options.newSecretSealed, Math.round(options.graceMs)],
  );
  if (rowCount === 0) return undefined;
  return findSubscriptionWith(client, options.orgId, options.id);
}

/** Wipes every rotated-out secret whose grace window has ended; answers how many. */
export async function wipeExpiredPreviousSecrets(pool: Pool): Promise<number> {
  const { rowCount } = await pool.query(
    `UPDATE subscriptions SET previous_secret_sealed = NULL, previous_secret_expires_at = NULL
     WHERE previous_secret_sealed IS NOT NULL AND previous_secret_expires_at <= now()`,
  );
  return rowCount ?? 0;
}
