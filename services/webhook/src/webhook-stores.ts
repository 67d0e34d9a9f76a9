// The webhook handlers' stores: subscriptions (SubscriptionStore) and their deliveries as the organization sees them (DeliveryLog).
import type { IdempotentRequest, ResponseCodec } from "@svc/platform/db";
import type { CreationCursor } from "./db/creation-cursor.ts";
import type { DeliveryFilter, DeliveryView } from "./db/delivery-log.ts";
import type { StoredEvent } from "./db/deliveries.ts";
import type { PendingCaps } from "./delivery/pending-caps.ts";
import type { SubscriptionChanges, SubscriptionRecord } from "./db/subscriptions.ts";

export interface NewSubscription {
  id: string;
  orgId: string;
  url: string;
  events: string[];
  /** The signing secret, sealed with the service's key and bound to the id. */
  secretSealed: Buffer;
  description: string;
  rateLimitPerSecond: number | null;
}

/** The writes that hand out a signing secret, so their answer can be kept for idempotent replays. */
export interface SecretIssuingWrites {
  /** Stores the subscription unless the organization already has `maxPerOrg` (concurrent registrations cannot overshoot). */
  insert(subscription: NewSubscription, maxPerOrg: number): Promise<SubscriptionRecord | "limit-reached">;
  /** Replaces the signing secret; the replaced one keeps signing for `graceMs`. Undefined when there is no such subscription. */
  rotateSecret(rotation: { orgId: string; id: string; newSecretSealed: Buffer; graceMs: number }): Promise<SubscriptionRecord | undefined>;
}

/**
 * The webhook subscriptions the API handlers manage. Every call is limited to one organization:
 * another organization's subscription does not exist for the caller. Postgres: db/pg-webhook-stores.ts.
 */
export interface SubscriptionStore {
  /**
   * Runs `work` in one transaction, once per idempotent request (just once without one): a repeat
   * with the same request answers the first result, `replayed`. The stored result holds the
   * secret, so it is kept against its subscription and deleted with it.
   */
  issuingSecret<T extends { subscription?: { webhookId: string } }>(
    request: IdempotentRequest | undefined,
    codec: ResponseCodec<T>,
    work: (writes: SecretIssuingWrites) => Promise<T>,
  ): Promise<{ value: T; replayed: boolean }>;
  /** Every subscription of the organization, oldest first. */
  list(orgId: string): Promise<SubscriptionRecord[]>;
  /** One page of them, oldest first; `next` continues the listing. */
  listPage(orgId: string, page: { size: number; after?: CreationCursor }): Promise<{ subscriptions: SubscriptionRecord[]; next?: CreationCursor }>;
  find(orgId: string, id: string): Promise<SubscriptionRecord | undefined>;
  /** False when there is no such subscription. */
  delete(orgId: string, id: string): Promise<boolean>;
  enable(orgId: string, id: string): Promise<SubscriptionRecord | undefined>;
  update(orgId: string, id: string, changes: SubscriptionChanges): Promise<SubscriptionRecord | undefined>;
}

/** A subscription's deliveries as its organization sees and steers them. Postgres: db/pg-webhook-stores.ts. */
export interface DeliveryLog {
  /** Newest first, narrowed by `filter`; `next` continues the listing. */
  list(query: { orgId: string; subscriptionId: string; pageSize: number; after?: CreationCursor; filter?: DeliveryFilter }): Promise<{
    deliveries: DeliveryView[];
    next?: CreationCursor;
  }>;
  find(orgId: string, subscriptionId: string, deliveryId: string): Promise<DeliveryView | undefined>;
  /** Makes the delivery due now (a finished one gets one more attempt); false when it was not re-scheduled (its attempt is in flight). */
  scheduleRedelivery(orgId: string, subscriptionId: string, deliveryId: string): Promise<boolean>;
  /** Makes every failed delivery created in [since, until) due now, for one more attempt each; answers how many. */
  recoverFailed(window: { orgId: string; subscriptionId: string; since: Date; until: Date }): Promise<number>;
  /** Stores one delivery of `event` to one subscription (a test event), within the pending caps. */
  storeSingle(event: StoredEvent, subscriptionId: string, deliveryId: string, caps: PendingCaps): Promise<void>;
}
