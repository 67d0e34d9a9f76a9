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
  ListDeliveriesQuery,
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

/** POST/GET/DELETE /webhook (spec 4.3-4.5) and the delivery-log, redelivery, test and re-enable extensions. */
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
          "400": errorResponse("Invalid body: not a JSON object, wrong JSON types, a missing, malformed, insecure or forbidden url, an empty or unknown event list. The message names each problem."),
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
        description: "Every subscription of the caller's organization, oldest first, never with its secret. A disabled subscription says when and why it was disabled.",
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.read"] }],
        responses: {
          "200": json(WebhookList, "The organization's subscriptions."),
          ...common,
          "403": forbidden("webhook.read"),
          "429": tooManyRequests(),
        },
      },
      delete: {
        operationId: "deleteWebhook",
        summary: "Delete a webhook endpoint",
        description: "Removes the subscription named in the body. Its pending deliveries are cancelled and never sent; an attempt already in flight at that moment may still arrive.",
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
        description: "The subscription's deliveries, newest first, each with its attempts (the 50 most recent, oldest first). Paginate with `pageToken` = the previous page's `nextPageToken`.",
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.read"] }],
        requestParams: { path: WebhookPath, query: ListDeliveriesQuery },
        responses: {
          "200": json(DeliveryPage, "One page of deliveries."),
          "400": errorResponse("`webhookId` not a UUID, `pageSize` out of range, or a `pageToken` this API did not return."),
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
