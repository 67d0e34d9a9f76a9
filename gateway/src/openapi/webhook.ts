import { z } from "zod";
import { SUBSCRIBABLE_EVENT_TYPES, webhookLimits } from "@svc/platform/contract";
import { IdempotencyKeyHeader } from "../contract/common.ts";
import {
  CreatedWebhook,
  CreateWebhookRequest,
  DeletedWebhook,
  DeleteWebhookRequest,
  Delivery,
  DeliveryPage,
  DeliveryPath,
  EventTypeList,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  RecoveredDeliveries,
  RecoverWebhookRequest,
  RotatedSecret,
  UpdateWebhookRequest,
  Webhook,
  WebhookList,
  WebhookPath,
} from "../contract/webhook.ts";
import {
  errorResponse,
  forbiddenResponse as forbidden,
  idempotencyResponses,
  jsonRequestBody,
  jsonResponse as json,
  tooManyRequestsResponse as tooManyRequests,
  unauthorizedResponse as unauthorized,
  type OpenApiFragment,
} from "./document.ts";

const common = {
  "401": unauthorized,
  "500": errorResponse("Internal server error."),
  "503": errorResponse("A service is temporarily unavailable."),
};

const webhookNotFound = errorResponse('No such subscription in the caller\'s organization (also a deleted one): `{"error": "Webhook not found"}`.');
const disabledConflict = errorResponse("The subscription is disabled; re-enable it first (`POST /webhook/{webhookId}/enable`).");

const deliveryNotes =
  "Delivery is at least once and unordered: a receiver may get the same event twice (deduplicate on the `webhook-id` header) and events in any order.";

const updateScope = "webhook.update";

/**
 * POST/GET/DELETE /webhook (spec 4.3-4.5) and the extensions: update, secret rotation, recovery,
 * the delivery log, redelivery, test events, re-enabling and the event-type catalog.
 */
export const webhookOpenApi: OpenApiFragment = {
  paths: {
    "/webhook": {
      post: {
        operationId: "createWebhook",
        summary: "Register a webhook endpoint",
        description:
          "Subscribes `url` to the listed event types for the caller's organization and returns the signing secret, **once**: it cannot be retrieved again. " +
          `\`url\` must be an absolute https URL (http only where the deployment allows insecure targets) of at most ${webhookLimits.urlMaxLength} characters, without credentials, whose host does not resolve to a loopback, private, link-local, carrier-grade NAT, reserved, unique-local or cloud-metadata address (checked again on every delivery). ` +
          `\`events\` must be a non-empty list of known types (${SUBSCRIBABLE_EVENT_TYPES.map((type) => `\`${type}\``).join(", ")}; their bodies are under \`webhooks\` in this document), at most ${webhookLimits.eventsMax} entries; duplicates are removed. An organization may have at most 100 subscriptions. ` +
          "Deliveries are signed per Standard Webhooks (headers `webhook-id`, `webhook-timestamp`, `webhook-signature`). " +
          deliveryNotes,
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.create"] }],
        requestParams: { header: z.object({ "Idempotency-Key": IdempotencyKeyHeader }) },
        requestBody: jsonRequestBody(CreateWebhookRequest),
        responses: {
          "201": json(CreatedWebhook, "The subscription, with its signing secret (shown only here)."),
          "400": errorResponse(
            "Invalid body: not a JSON object, wrong JSON types, a missing, malformed, insecure or forbidden url, an empty or unknown event list, a description too long or with control characters, a rate limit out of range. The message names each problem.",
          ),
          ...common,
          "403": forbidden("webhook.create"),
          "413": errorResponse("Request body over 100 KB."),
          ...idempotencyResponses,
          "429": tooManyRequests(),
        },
      },
      get: {
        operationId: "listWebhooks",
        summary: "List webhook endpoints",
        description:
          "Every subscription of the caller's organization, oldest first, never with its secret. A disabled subscription says when and why it was disabled. Without `pageSize` and `pageToken` the answer lists them all (at most the per-organization limit, 100 by default); with them, one page, and `nextPageToken` continues.",
        tags: ["Webhooks"],
        requestParams: { query: ListWebhooksQuery },
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.read"] }],
        responses: {
          "200": json(WebhookList, "The organization's subscriptions."),
          "400": errorResponse("`pageSize` out of range, or a `pageToken` this API did not return."),
          ...common,
          "403": forbidden("webhook.read"),
          "429": tooManyRequests(),
        },
      },
      delete: {
        operationId: "deleteWebhook",
        summary: "Delete a webhook endpoint",
        description:
          "Removes the subscription named in the body. Its pending deliveries are cancelled and never sent; an attempt already in flight at that moment may still arrive.",
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.delete"] }],
        requestBody: jsonRequestBody(DeleteWebhookRequest),
        responses: {
          "200": json(DeletedWebhook, "The subscription was deleted."),
          "400": errorResponse("Body not a JSON object, or `webhookId` missing or not a UUID."),
          ...common,
          "403": forbidden("webhook.delete"),
          "404": webhookNotFound,
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests(),
        },
      },
    },
    "/webhook/{webhookId}": {
      patch: {
        operationId: "updateWebhook",
        summary: "Change a webhook endpoint",
        description:
          "Changes the fields present in the body and keeps the others, with the rules of registration: a new `url` passes the same checks (https, no credentials, and a host that is not and does not resolve to an address inside the platform's network: the same 400 as at registration); `events` replaces the list. " +
          "`disabled: true` stops deliveries at once (pending ones fail and can be recovered after re-enabling; an attempt in flight may still arrive); `disabled: false` re-enables, like `POST /webhook/{webhookId}/enable`. `rateLimitPerSecond: null` removes the limit. The signing secret is unchanged (see `rotate-secret`).",
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: [updateScope] }],
        requestParams: { path: WebhookPath },
        requestBody: jsonRequestBody(UpdateWebhookRequest),
        responses: {
          "200": json(Webhook, "The subscription as changed."),
          "400": errorResponse(
            "`webhookId` not a UUID, a body that is not a JSON object or names nothing to change, wrong JSON types, or a value registration would refuse. The message names each problem.",
          ),
          ...common,
          "403": forbidden(updateScope),
          "404": webhookNotFound,
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests(),
        },
      },
    },
    "/webhook/{webhookId}/rotate-secret": {
      post: {
        operationId: "rotateWebhookSecret",
        summary: "Rotate a webhook endpoint's signing secret",
        description:
          "Replaces the signing secret and returns the new one, **once**. For a grace window (24 hours unless the deployment says otherwise; `previousSecretExpiresAt`) every delivery carries two signatures in `webhook-signature`, one with the previous secret and one with the new, space-separated as Standard Webhooks defines, so a receiver verifies with either while it switches; after the window only the new secret signs and the previous one is wiped. Rotating again within the window retires the secret being replaced: only the latest two ever sign. " +
          "Send an `Idempotency-Key` to retry safely: a retry returns the same new secret instead of rotating again. No request body.",
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: [updateScope] }],
        requestParams: { path: WebhookPath, header: z.object({ "Idempotency-Key": IdempotencyKeyHeader }) },
        responses: {
          "200": json(RotatedSecret, "The new secret (shown only here) and the end of the grace window."),
          "400": errorResponse("`webhookId` is not a UUID, or a body that is not JSON was sent."),
          ...common,
          "403": forbidden(updateScope),
          "404": webhookNotFound,
          "409": idempotencyResponses["409"],
          "422": idempotencyResponses["422"],
          "429": tooManyRequests(),
        },
      },
    },
    "/webhook/{webhookId}/recover": {
      post: {
        operationId: "recoverWebhookDeliveries",
        summary: "Redeliver every failed delivery of a window",
        description:
          `Makes every \`failed\` delivery of this endpoint created in [\`since\`, \`until\`) due now, for one more attempt each, with its original \`webhook-id\` and body (freshly signed). \`since\` may be at most ${webhookLimits.recoverWindowDays} days ago; \`until\` defaults to now. Deliveries that are pending, succeeded or cancelled are left alone. ` +
          "The endpoint's rate limit, if any, paces them. The results arrive asynchronously: read them from the delivery log (`status=failed` shows what is still failing).",
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: [updateScope] }],
        requestParams: { path: WebhookPath },
        requestBody: jsonRequestBody(RecoverWebhookRequest),
        responses: {
          "202": json(RecoveredDeliveries, "How many deliveries are due again, and the window."),
          "400": errorResponse(
            `\`webhookId\` not a UUID, a body that is not a JSON object, \`since\` missing, not an ISO 8601 date-time with an offset or more than ${webhookLimits.recoverWindowDays} days ago, \`until\` malformed or not after \`since\`.`,
          ),
          ...common,
          "403": forbidden(updateScope),
          "404": webhookNotFound,
          "409": disabledConflict,
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests(),
        },
      },
    },
    "/event-types": {
      get: {
        operationId: "listEventTypes",
        summary: "List the event types",
        description:
          "Every event type a subscription may list, with what it means and the JSON Schema of its `data` (generated from the same schemas as this document's `webhooks`). Every body is `{type, timestamp, data}`. `webhook.test` (sent on request only, never subscribed to) is not listed.",
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.read"] }],
        responses: {
          "200": json(EventTypeList, "The catalog."),
          ...common,
          "403": forbidden("webhook.read"),
          "429": tooManyRequests(),
        },
      },
    },
    "/webhook/{webhookId}/enable": {
      post: {
        operationId: "enableWebhook",
        summary: "Re-enable a disabled webhook endpoint",
        description:
          "Clears the disabled state (after `410 Gone` or 5 days of continuous failure) so new events are delivered again. Deliveries that failed while disabled stay failed; redeliver them one by one. Enabling an enabled subscription changes nothing. No request body.",
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.create"] }],
        requestParams: { path: WebhookPath },
        responses: {
          "200": json(Webhook, "The subscription, enabled."),
          "400": errorResponse("`webhookId` is not a UUID, or a body that is not JSON was sent."),
          ...common,
          "403": forbidden("webhook.create"),
          "404": webhookNotFound,
          "429": tooManyRequests(),
        },
      },
    },
    "/webhook/{webhookId}/deliveries": {
      get: {
        operationId: "listWebhookDeliveries",
        summary: "List a webhook endpoint's deliveries",
        description:
          "The subscription's deliveries, newest first, each with its attempts (the 50 most recent, oldest first). Narrow it with `status`, `statusClass` (of each delivery's most recent attempt) and a creation window (`since`, `until`); the filters combine. Paginate with `pageToken` = the previous page's `nextPageToken`, keeping the same filters.",
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.read"] }],
        requestParams: { path: WebhookPath, query: ListDeliveriesQuery },
        responses: {
          "200": json(DeliveryPage, "One page of deliveries."),
          "400": errorResponse(
            "`webhookId` not a UUID, `pageSize` out of range, an unknown `status` or `statusClass`, `since` or `until` not an ISO 8601 date-time with an offset, `until` not after `since`, or a `pageToken` this API did not return.",
          ),
          ...common,
          "403": forbidden("webhook.read"),
          "404": webhookNotFound,
          "429": tooManyRequests(),
        },
      },
    },
    "/webhook/{webhookId}/deliveries/{deliveryId}/retry": {
      post: {
        operationId: "retryWebhookDelivery",
        summary: "Redeliver one delivery now",
        description:
          "Schedules an attempt of the delivery at once, with the same `webhook-id` and body (freshly signed). A pending delivery keeps its retry schedule; a succeeded or failed one gets one more attempt without automatic retries. An attempt in flight is not duplicated. The result arrives asynchronously: read it from the delivery log. No request body.",
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.create"] }],
        requestParams: { path: DeliveryPath },
        responses: {
          "202": json(Delivery, "The delivery, scheduled."),
          "400": errorResponse("`webhookId` or `deliveryId` not a UUID, or a body that is not JSON was sent."),
          ...common,
          "403": forbidden("webhook.create"),
          "404": errorResponse('No such subscription (`{"error": "Webhook not found"}`) or no such delivery of it (`{"error": "Delivery not found"}`).'),
          "409": disabledConflict,
          "429": tooManyRequests(),
        },
      },
    },
    "/webhook/{webhookId}/test": {
      post: {
        operationId: "testWebhook",
        summary: "Send a signed test event",
        description:
          'Sends a `webhook.test` event (`{"type":"webhook.test","timestamp":...,"data":{"webhookId","orgId","message"}}`) to this endpoint only, signed like every delivery: a single attempt, never retried automatically; at most 10 per webhook per minute (`WEBHOOK_TEST_EVENTS_PER_MINUTE`). The result arrives asynchronously: read it from the delivery log. No request body.',
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.create"] }],
        requestParams: { path: WebhookPath },
        responses: {
          "202": json(Delivery, "The test delivery, scheduled."),
          "400": errorResponse("`webhookId` is not a UUID, or a body that is not JSON was sent."),
          ...common,
          "403": forbidden("webhook.create"),
          "404": webhookNotFound,
          "409": disabledConflict,
          "429": tooManyRequests("Too many test events for this webhook (or requests for this credential); `Retry-After` says when to try again."),
        },
      },
    },
  },
};
