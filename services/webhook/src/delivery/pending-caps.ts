/**
 * Most pending deliveries an endpoint, and an organization over all its endpoints, may have; beyond
 * them new deliveries are stored as failed, never sent (docs/decisions/0012-delivery-fairness-and-retention.md).
 * The configuration sets them (WEBHOOK_MAX_PENDING_*); the defaults live here, apart from the
 * database code that enforces them, so the configuration needs no database module.
 */
export interface PendingCaps {
  perEndpoint: number;
  perOrganization: number;
}

export const DEFAULT_PENDING_CAPS: PendingCaps = { perEndpoint: 5_000, perOrganization: 20_000 };
