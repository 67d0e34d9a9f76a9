import { expiredIdempotencyKeys, purgeInBatches, type Pool, type PurgeOptions } from "@svc/platform/db";
import { sentOutboxRows } from "./outbox.ts";
import { appliedWebhookIds } from "./room-participants.ts";

/** How long the meeting schema keeps what only the machinery needs. */
export const MEETING_RETENTION = {
  /** Sent outbox rows, kept for inspection. */
  sentOutboxDays: 7,
  /** Ids of applied media-server webhooks (a redelivery never comes that late). */
  appliedWebhookIdHours: 24,
} as const;

/**
 * The meeting schema's retention: sent outbox rows, applied media-server webhook ids and expired
 * idempotency keys, each in batches (see purgeInBatches). Meetings, their attendees and their
 * visits are the customer's data and are kept. Returns how many rows of each kind were removed.
 */
export async function purgeMeetingHistory(pool: Pool, options: PurgeOptions): Promise<Record<string, number>> {
  return {
    [sentOutboxRows.name]: await purgeInBatches(pool, { ...sentOutboxRows, params: [MEETING_RETENTION.sentOutboxDays] }, options),
    [appliedWebhookIds.name]: await purgeInBatches(pool, { ...appliedWebhookIds, params: [MEETING_RETENTION.appliedWebhookIdHours] }, options),
    [expiredIdempotencyKeys.name]: await purgeInBatches(pool, expiredIdempotencyKeys, options),
  };
}
