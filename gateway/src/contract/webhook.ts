import { z } from "zod";
import { HOST_LABEL, SUBSCRIBABLE_EVENT_TYPES, webhookLimits } from "@svc/platform/contract";
import { dateTime, httpUrlPattern, nullableDateTime, uuid } from "./common.ts";

// ---- Requests -------------------------------------------------------------------------------

// The target URL as the webhook service accepts it (services/webhook/src/delivery/target-policy.ts),
// as far as a pattern can say it: https, RFC 3986, a host name of at most 253 characters in labels
// of at most 63 whose last label starts with a letter (a numeric one makes the host an IPv4
// address, which the pattern leaves out), an optional port, no credentials.
const TARGET_URL_PATTERN = httpUrlPattern(`(?=[^/?#:]{1,253}(?:[:/?#]|$))(?:${HOST_LABEL}\\.)*[A-Za-z][A-Za-z0-9_-]{0,62}\\.?`, {
  allowHttp: false,
  fragment: true,
});

const targetUrl = z.string({ error: "url must be a string" }).meta({
  format: "uri",
  maxLength: webhookLimits.urlMaxLength,
  pattern: TARGET_URL_PATTERN,
  description: `Absolute https URI (RFC 3986, so ASCII: an internationalised host in its punycode form) that receives the events: a host name, no user name or password, at most ${webhookLimits.urlMaxLength} characters. Refused (400) when the host is, or resolves to, an address inside the platform's network (loopback, private, link-local, carrier-grade NAT, reserved, multicast, unique-local); deployments may allow private targets and plain http for development.`,
  examples: ["https://cal.example/api/integrations/svc/webhook"],
});

const eventTypes = z
  .array(z.string({ error: "events must be an array of strings" }).meta({ override: { type: "string", enum: SUBSCRIBABLE_EVENT_TYPES } }), {
    error: "events must be an array of strings",
  })
  .meta({ minItems: 1, maxItems: webhookLimits.eventsMax, description: "Event types; duplicates are removed." });

/** Shapes only: the URL rules, the SSRF guard and the event catalog are the webhook service's. */
export const CreateWebhookRequest = z
  .object({ url: targetUrl.optional(), events: eventTypes.optional() })
  .meta({ id: "CreateWebhookRequest", override: ({ jsonSchema }) => void (jsonSchema.required = ["url", "events"]) });

export const DeleteWebhookRequest = z
  .object({ webhookId: z.string({ error: "webhookId must be a string" }).meta({ format: "uuid" }).optional() })
  .meta({ id: "DeleteWebhookRequest", override: ({ jsonSchema }) => void (jsonSchema.required = ["webhookId"]) });

export const WebhookPath = z.object({ webhookId: z.string().meta({ format: "uuid", description: "The subscription's `webhookId` (a UUID)." }) });
export const DeliveryPath = WebhookPath.extend({ deliveryId: z.string().meta({ format: "uuid", description: "The delivery's id (its `webhook-id`)." }) });

const pageSizeMessage = `pageSize must be an integer between 1 and ${webhookLimits.pageSizeMax}`;

export const ListDeliveriesQuery = z.object({
  // 0 means "unset" on the wire, so an explicit 0 is refused here.
  pageSize: z
    .string({ error: pageSizeMessage })
    .regex(/^[1-9]\d{0,3}$/, pageSizeMessage)
    .transform(Number)
    .optional()
    .meta({ description: `1 to ${webhookLimits.pageSizeMax}; default 20.`, override: { type: "integer", minimum: 1, maximum: webhookLimits.pageSizeMax, default: 20 } }),
  pageToken: z
    .string({ error: "pageToken must be a single string" })
    .optional()
    .meta({
      description: "`nextPageToken` of the previous page, unchanged: an opaque cursor (base64url); empty means the first page; any value this API did not return is 400.",
      pattern: "^[A-Za-z0-9_-]*$",
      maxLength: 200,
    }),
});

// ---- Responses ------------------------------------------------------------------------------

export const CreatedWebhook = z
  .object({
    webhookId: uuid(),
    url: z.string().meta({ format: "uri" }),
    events: z.array(z.string()),
    secret: z.string().meta({
      pattern: "^whsec_[A-Za-z0-9+/]{43}=$",
      description: "`whsec_` + base64 of 32 random bytes: the Standard Webhooks signing secret. Shown only in this response; store it now.",
    }),
    createdAt: dateTime(),
  })
  .meta({ id: "CreatedWebhook" });

export const Webhook = z
  .object({
    webhookId: uuid(),
    url: z.string().meta({ format: "uri" }),
    events: z.array(z.string()),
    createdAt: dateTime(),
    disabled: z.boolean().meta({ description: "True when deliveries stopped (410 Gone, or continuous failure for 5 days). Re-enable explicitly." }),
    disabledAt: dateTime("Only when disabled.").optional(),
    disabledReason: z.string().optional().meta({ description: "Only when disabled." }),
  })
  .meta({ id: "Webhook" });

export const WebhookList = z.object({ webhooks: z.array(Webhook) }).meta({ id: "WebhookList" });

export const DeletedWebhook = z.object({ webhookId: uuid(), deleted: z.literal(true) }).meta({ id: "DeletedWebhook" });

export const DeliveryAttempt = z
  .object({
    attemptedAt: dateTime(),
    statusCode: z.int().nullable().meta({ description: "Null when no response arrived (timeout, connection error, refused target)." }),
    latencyMs: z.int(),
    error: z.string().nullable().meta({ description: "Why the attempt failed; null on success." }),
    responseExcerpt: z.string().meta({ maxLength: 1024, description: "The first bytes (at most 1 KB) of the response body." }),
  })
  .meta({ id: "DeliveryAttempt" });

export const DeliveryStatusName = z.enum(["pending", "succeeded", "failed", "cancelled"]);

export const Delivery = z
  .object({
    deliveryId: uuid("Sent as the `webhook-id` header; the same on every attempt."),
    webhookId: uuid(),
    eventId: z.string(),
    eventType: z.string().meta({ examples: ["meeting.ended", "webhook.test"] }),
    status: DeliveryStatusName.meta({
      description: "`pending`: an attempt is due or in flight; `failed`: every retry failed (or the subscription was disabled); `cancelled`: the subscription was deleted first.",
    }),
    createdAt: dateTime(),
    nextAttemptAt: nullableDateTime("When pending: the next attempt (or the end of the current one)."),
    attempts: z.array(DeliveryAttempt),
  })
  .meta({ id: "Delivery" });

export const DeliveryPage = z
  .object({
    deliveries: z.array(Delivery),
    nextPageToken: z.string().nullable().meta({ description: "Pass as `pageToken` for the next page; null on the last page." }),
  })
  .meta({ id: "DeliveryPage" });
