import {
  errorResponse,
  forbiddenResponse as forbidden,
  idempotencyKeyParameter,
  idempotencyResponses,
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

const webhookIdParameter = {
  name: "webhookId",
  in: "path",
  required: true,
  description: "The subscription's `webhookId` (a UUID).",
  schema: { type: "string", format: "uuid" },
};

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
          "`url` must be an absolute https URL (http only where the deployment allows insecure targets) of at most 2048 characters, without credentials, whose host does not resolve to a loopback, private, link-local, carrier-grade NAT, reserved, unique-local or cloud-metadata address (checked again on every delivery). " +
          "`events` must be a non-empty list of known types (`meeting.started`, `meeting.ended`, `meeting.updated`, `meeting.cancelled`, `participant.joined`, `participant.left`; their bodies are under `webhooks` in this document), at most 20 entries; duplicates are removed. An organization may have at most 100 subscriptions. " +
          "Deliveries are signed per Standard Webhooks (headers `webhook-id`, `webhook-timestamp`, `webhook-signature`). " +
          deliveryNotes,
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.create"] }],
        parameters: [idempotencyKeyParameter],
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/CreateWebhookRequest" } } } },
        responses: {
          "201": json("CreatedWebhook", "The subscription, with its signing secret (shown only here)."),
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
          "200": json("WebhookList", "The organization's subscriptions."),
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
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/DeleteWebhookRequest" } } } },
        responses: {
          "200": json("DeletedWebhook", "The subscription was deleted."),
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
        parameters: [webhookIdParameter],
        responses: {
          "200": json("Webhook", "The subscription, enabled."),
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
        parameters: [
          webhookIdParameter,
          { name: "pageSize", in: "query", required: false, description: "1 to 100; default 20.", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } },
          {
            name: "pageToken",
            in: "query",
            required: false,
            description: "`nextPageToken` of the previous page, unchanged: an opaque cursor (base64url); empty means the first page; any value this API did not return is 400.",
            schema: { type: "string", pattern: "^[A-Za-z0-9_-]*$", maxLength: 200 },
          },
        ],
        responses: {
          "200": json("DeliveryPage", "One page of deliveries."),
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
        parameters: [webhookIdParameter, { name: "deliveryId", in: "path", required: true, description: "The delivery's id (its `webhook-id`).", schema: { type: "string", format: "uuid" } }],
        responses: {
          "202": json("Delivery", "The delivery, scheduled."),
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
          'Sends a `webhook.test` event (`{"type":"webhook.test","timestamp":...,"data":{"webhookId","orgId","message"}}`) to this endpoint only, signed like every delivery and retried on the same schedule. The result arrives asynchronously: read it from the delivery log. No request body.',
        tags: ["Webhooks"],
        security: [{ ApiKey: [] }, { OAuth2: ["webhook.create"] }],
        parameters: [webhookIdParameter],
        responses: {
          "202": json("Delivery", "The test delivery, scheduled."),
          "400": errorResponse("`webhookId` is not a UUID, or a body that is not JSON was sent."),
          ...common,
          "403": forbidden("webhook.create"),
          "404": webhookNotFound,
          "409": disabledConflict,
          "429": tooManyRequests(),
        },
      },
    },
  },
  schemas: {
    CreateWebhookRequest: {
      type: "object",
      required: ["url", "events"],
      properties: {
        url: {
          type: "string",
          format: "uri",
          maxLength: 2048,
          // Stricter than the uri format: https (any case), a host, no credentials. http only where the operator allows it.
          pattern: "^[Hh][Tt][Tt][Pp][Ss]://[^\\s/?#@\\\\]+(?:[/?#]\\S*)?$",
          description:
            "Absolute https URI (RFC 3986, so ASCII: an internationalised host in its punycode form) that receives the events: a host, no user name or password, at most 2048 characters. Refused (400) when the host is, or resolves to, an address inside the platform's network (loopback, private, link-local, carrier-grade NAT, reserved, multicast, unique-local); deployments may allow private targets and plain http for development.",
          examples: ["https://cal.example/api/integrations/svc/webhook"],
        },
        events: { type: "array", minItems: 1, maxItems: 20, items: { type: "string", enum: ["meeting.started", "meeting.ended", "meeting.updated", "meeting.cancelled", "participant.joined", "participant.left"] }, description: "Event types; duplicates are removed." },
      },
    },
    CreatedWebhook: {
      type: "object",
      required: ["webhookId", "url", "events", "secret", "createdAt"],
      properties: {
        webhookId: { type: "string", format: "uuid" },
        url: { type: "string", format: "uri" },
        events: { type: "array", items: { type: "string" } },
        secret: {
          type: "string",
          pattern: "^whsec_[A-Za-z0-9+/]{43}=$",
          description: "`whsec_` + base64 of 32 random bytes: the Standard Webhooks signing secret. Shown only in this response; store it now.",
        },
        createdAt: { type: "string", format: "date-time" },
      },
    },
    Webhook: {
      type: "object",
      required: ["webhookId", "url", "events", "createdAt", "disabled"],
      properties: {
        webhookId: { type: "string", format: "uuid" },
        url: { type: "string", format: "uri" },
        events: { type: "array", items: { type: "string" } },
        createdAt: { type: "string", format: "date-time" },
        disabled: { type: "boolean", description: "True when deliveries stopped (410 Gone, or continuous failure for 5 days). Re-enable explicitly." },
        disabledAt: { type: "string", format: "date-time", description: "Only when disabled." },
        disabledReason: { type: "string", description: "Only when disabled." },
      },
    },
    WebhookList: {
      type: "object",
      required: ["webhooks"],
      properties: { webhooks: { type: "array", items: { $ref: "#/components/schemas/Webhook" } } },
    },
    DeleteWebhookRequest: {
      type: "object",
      required: ["webhookId"],
      properties: { webhookId: { type: "string", format: "uuid" } },
    },
    DeletedWebhook: {
      type: "object",
      required: ["webhookId", "deleted"],
      properties: { webhookId: { type: "string", format: "uuid" }, deleted: { type: "boolean", const: true } },
    },
    Delivery: {
      type: "object",
      required: ["deliveryId", "webhookId", "eventId", "eventType", "status", "createdAt", "nextAttemptAt", "attempts"],
      properties: {
        deliveryId: { type: "string", format: "uuid", description: "Sent as the `webhook-id` header; the same on every attempt." },
        webhookId: { type: "string", format: "uuid" },
        eventId: { type: "string" },
        eventType: { type: "string", examples: ["meeting.ended", "webhook.test"] },
        status: {
          type: "string",
          enum: ["pending", "succeeded", "failed", "cancelled"],
          description: "`pending`: an attempt is due or in flight; `failed`: every retry failed (or the subscription was disabled); `cancelled`: the subscription was deleted first.",
        },
        createdAt: { type: "string", format: "date-time" },
        nextAttemptAt: { type: ["string", "null"], format: "date-time", description: "When pending: the next attempt (or the end of the current one)." },
        attempts: { type: "array", items: { $ref: "#/components/schemas/DeliveryAttempt" } },
      },
    },
    DeliveryAttempt: {
      type: "object",
      required: ["attemptedAt", "statusCode", "latencyMs", "error", "responseExcerpt"],
      properties: {
        attemptedAt: { type: "string", format: "date-time" },
        statusCode: { type: ["integer", "null"], description: "Null when no response arrived (timeout, connection error, refused target)." },
        latencyMs: { type: "integer" },
        error: { type: ["string", "null"], description: "Why the attempt failed; null on success." },
        responseExcerpt: { type: "string", maxLength: 1024, description: "The first bytes (at most 1 KB) of the response body." },
      },
    },
    DeliveryPage: {
      type: "object",
      required: ["deliveries", "nextPageToken"],
      properties: {
        deliveries: { type: "array", items: { $ref: "#/components/schemas/Delivery" } },
        nextPageToken: { type: ["string", "null"], description: "Pass as `pageToken` for the next page; null on the last page." },
      },
    },
  },
};
