import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { enumWords, type StatusClass } from "@svc/platform/contract";
import {
  AttemptSchema,
  DeliverySchema,
  DeliveryStatusSchema,
  HttpStatusClass,
  SubscriptionSchema,
  type Delivery,
  type DeliveryStatus,
  type Subscription,
} from "@svc/proto/svc/webhook/v1/webhook_pb";
import type { DeliveryView, SubscriptionRecord } from "../webhook-stores.ts";

// The API's messages made from the stores' records, and the API's enum values in the stores' words.

/** A delivery's status in the log's words (pending, succeeded, failed, cancelled), read from the enum itself. */
export const deliveryStatusWords = enumWords<DeliveryStatus, DeliveryView["status"]>(DeliveryStatusSchema);

/** The API's status classes in the log's words (not the enum's names: 2xx is SUCCESSFUL). */
export const statusClassOf: Partial<Record<HttpStatusClass, StatusClass>> = {
  [HttpStatusClass.NO_RESPONSE]: "none",
  [HttpStatusClass.SUCCESSFUL]: "2xx",
  [HttpStatusClass.REDIRECTION]: "3xx",
  [HttpStatusClass.CLIENT_ERROR]: "4xx",
  [HttpStatusClass.SERVER_ERROR]: "5xx",
};

export function toSubscription(record: SubscriptionRecord): Subscription {
  return create(SubscriptionSchema, {
    webhookId: record.id,
    url: record.url,
    events: record.events,
    createdAt: timestampFromDate(record.createdAt),
    ...(record.disabledAt ? { disabledAt: timestampFromDate(record.disabledAt), disabledReason: record.disabledReason ?? "" } : {}),
    description: record.description,
    ...(record.rateLimitPerSecond !== null ? { rateLimitPerSecond: record.rateLimitPerSecond } : {}),
    ...(record.previousSecretExpiresAt ? { previousSecretExpiresAt: timestampFromDate(record.previousSecretExpiresAt) } : {}),
  });
}

export function toDelivery(view: DeliveryView): Delivery {
  return create(DeliverySchema, {
    deliveryId: view.id,
    webhookId: view.subscriptionId,
    eventType: view.eventType,
    eventId: view.eventId,
    status: deliveryStatusWords.valueOf(view.status),
    createdAt: timestampFromDate(view.createdAt),
    ...(view.nextAttemptAt ? { nextAttemptAt: timestampFromDate(view.nextAttemptAt) } : {}),
    attempts: view.attempts.map((attempt) =>
      create(AttemptSchema, {
        attemptedAt: timestampFromDate(attempt.attemptedAt),
        statusCode: attempt.statusCode ?? 0,
        latencyMs: attempt.latencyMs,
        error: attempt.error ?? "",
        responseExcerpt: attempt.responseExcerpt,
      }),
    ),
  });
}
