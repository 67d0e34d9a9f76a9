// The webhook handlers' stores: subscriptions (SubscriptionStore) and their deliveries as the organization sees them
// (DeliveryLog). The records are the stores': the handlers and the Postgres adapter (db/) import them from here.
import type { IdempotentRequest, ResponseCodec } from "@svc/platform/db";
import type { EventContextHeaders } from "@svc/platform";
import type { StatusClass } from "@svc/platform/contract";
import type { PendingCaps } from "./delivery/pending-caps.ts";

/**
 * A position in a listing ordered by creation time, then id (keyset pagination: stable while rows
 * are added): the creation time in microseconds, exact as Postgres stores it, and the id. Page
 * tokens encode it (api/request-rules.ts).
 */
export interface CreationCursor {
  createdAtMicros: string;
  id: string;
}

export type DeliveryStatus = "pending" | "succeeded" | "failed" | "cancelled";

export interface StoredEvent {
  id: string;
  orgId: string;
  type: string;
  /** The exact JSON body every delivery of this event sends. */
  body: string;
  /** The request and trace the event arrived in, for its delivery attempts (see captureEventContext). */
  context?: EventContextHeaders;
}

/** A delivery as its subscriber may see it, with its most recent attempts (oldest first). */
export interface DeliveryView {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  createdAt: Date;
  nextAttemptAt: Date | null;
  attempts: AttemptView[];
}

export interface AttemptView {
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string;
}

/** Narrows the delivery log; every field is optional. */
export interface DeliveryFilter {
  status?: DeliveryStatus;
  /** The class of the most recent attempt's response; `none`: no response arrived. */
  statusClass?: StatusClass;
  /** Created at or after. */
  since?: Date;
  /** Created before. */
  until?: Date;
  /** Only deliveries of events about this meeting. */
  meetingId?: string;
}

/** A subscription as callers may see it: never the secret. */
export interface SubscriptionRecord {
  id: string;
  orgId: string;
  url: string;
  events: string[];
  createdAt: Date;
  disabledAt: Date | null;
  disabledReason: string | null;
  description: string;
  rateLimitPerSecond: number | null;
  /** While a rotated-out secret still signs beside the current one. */
  previousSecretExpiresAt: Date | null;
}

/** The changes of an update: each field present is set, the others are kept. */
export interface SubscriptionChanges {
  url?: string;
  events?: string[];
  description?: string;
  /** true disables (with the reason), false enables. */
  disabled?: { reason: string } | false;
  /** null removes the limit. */
  rateLimitPerSecond?: number | null;
}

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
