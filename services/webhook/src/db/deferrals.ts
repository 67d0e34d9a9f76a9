import type { Pool } from "@svc/platform/db";
import type { ClaimedDelivery } from "./deliveries.ts";

/**
 * Hands a claimed delivery back unsent, due again in `delayMs`, without counting an attempt (its
 * endpoint's rate limit said "not yet"). Only while this dispatcher still holds the lease.
 */
export async function deferDelivery(pool: Pool, delivery: ClaimedDelivery, delayMs: number): Promise<void> {
  await pool.query(
    `UPDATE deliveries SET next_attempt_at = now() + $3::int * interval '1 millisecond', lease_token = NULL, updated_at = now()
     WHERE id = $1 AND lease_token = $2 AND status = 'pending'`,
    [delivery.id, delivery.leaseToken, Math.ceil(delayMs)],
  );
}
