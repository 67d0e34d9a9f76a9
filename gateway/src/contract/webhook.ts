import { z } from "zod";
import { HOST_LABEL, MEETING_ID_TEXT, OFFSET_DATE_TIME, STATUS_CLASSES, SUBSCRIBABLE_EVENT_TYPES, webhookLimits } from "@svc/platform/contract";
import { dateTime, httpUrlPattern, nullableDateTime, requestDateTime, uuid } from "./common.ts";

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

const description = z.string({ error: "description must be a string" }).meta({
  maxLength: webhookLimits.descriptionMaxLength,
  // No control characters but newline and tab (the service's rule); trimmed when stored.
  pattern: "^[^\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029]*$",
  description: `Free text for people (what the endpoint is for, who owns it): at most ${webhookLimits.descriptionMaxLength} characters, trimmed; newlines and tabs allowed, other control characters not.`,
  examples: ["Calendar sync (team Atlas)"],
});

// A protobuf int32 on the way to the service, which owns the range rule.
const rateLimitPerSecond = z
  .int32({ error: "rateLimitPerSecond must be a whole number or null" })
  .meta({ override: { type: "integer", minimum: 1, maximum: webhookLimits.rateLimitPerSecondMax } })
  .nullable()
  .meta({
    description: `Most deliveries per second to this endpoint, 1 to ${webhookLimits.rateLimitPerSecondMax}, over every delivery worker: deliveries beyond it wait their turn (they are not failed). Null or absent: no limit.`,
  });

/** Shapes only: the URL rules, the SSRF guard and the event catalog are the webhook service's. */
export const CreateWebhookRequest = z
  .object({ url: targetUrl.optional(), events: eventTypes.optional(), description: description.optional(), rateLimitPerSecond: rateLimitPerSecond.optional() })
  .meta({ id: "CreateWebhookRequest", override: ({ jsonSchema }) => void (jsonSchema.required = ["url", "events"]) });

/** PATCH: any of the registration fields, plus `disabled`; those present are changed, by the same rules. */
export const UpdateWebhookRequest = z
  .object({
    url: targetUrl.optional(),
    events: eventTypes.optional(),
    description: description.optional(),
    disabled: z
      .boolean({ error: "disabled must be true or false" })
      .optional()
      .meta({ description: "true disables the endpoint (no new events; pending deliveries fail and can be recovered later); false re-enables it." }),
    rateLimitPerSecond: rateLimitPerSecond.optional(),
  })
  .meta({
    id: "UpdateWebhookRequest",
    description: "At least one field; those present are changed, the others kept. Unknown fields are ignored.",
    examples: [{ url: "https://cal.example/api/integrations/svc/webhook-v2", rateLimitPerSecond: 20 }, { disabled: true }],
    override: ({ jsonSchema }) =>
      void (jsonSchema.anyOf = ["url", "events", "description", "disabled", "rateLimitPerSecond"].map((field) => ({ required: [field] }))),
  });

const windowBound = (field: string, description: string) => requestDateTime(field, description).meta({ pattern: OFFSET_DATE_TIME.source });

export const RecoverWebhookRequest = z
  .object({
    since: windowBound(
      "since",
      `Start of the window (inclusive): an ISO 8601 date-time with a UTC offset, at most ${webhookLimits.recoverWindowDays} days ago.`,
    ).optional(),
    until: windowBound("until", "End of the window (exclusive), after `since`; absent: now.").optional(),
  })
  .meta({
    id: "RecoverWebhookRequest",
    override: ({ jsonSchema }) => void (jsonSchema.required = ["since"]),
  });

export const DeleteWebhookRequest = z
  .object({ webhookId: z.string({ error: "webhookId must be a string" }).meta({ format: "uuid" }).optional() })
  .meta({ id: "DeleteWebhookRequest", override: ({ jsonSchema }) => void (jsonSchema.required = ["webhookId"]) });

export const WebhookPath = z.object({ webhookId: z.string().meta({ format: "uuid", description: "The subscription's `webhookId` (a UUID)." }) });
export const DeliveryPath = WebhookPath.extend({ deliveryId: z.string().meta({ format: "uuid", description: "The delivery's id (its `webhook-id`)." }) });

const pageSizeMessage = `pageSize must be an integer between 1 and ${webhookLimits.pageSizeMax}`;

/** `pageSize` and `pageToken`, as every paged listing takes them; `whenUnset` says what no pageSize means. */
const pageQuery = (whenUnset: string, defaultSize?: number) => ({
  // 0 means "unset" on the wire, so an explicit 0 is refused here.
  pageSize: z
    .string({ error: pageSizeMessage })
    .regex(/^[1-9]\d{0,3}$/, pageSizeMessage)
    .transform(Number)
    .optional()
    .meta({
      description: `1 to ${webhookLimits.pageSizeMax}; ${whenUnset}`,
      override: { type: "integer", minimum: 1, maximum: webhookLimits.pageSizeMax, ...(defaultSize ? { default: defaultSize } : {}) },
    }),
  pageToken: z.string({ error: "pageToken must be a single string" }).optional().meta({
    description:
      "`nextPageToken` of the previous page, unchanged: an opaque cursor (base64url); empty means the first page; any value this API did not return is 400.",
    pattern: "^[A-Za-z0-9_-]*$",
    maxLength: 200,
  }),
});

/** GET /webhook: without `pageSize` and `pageToken`, every subscription (spec 4.4). */
export const ListWebhooksQuery = z.object(pageQuery("without pageSize and pageToken every subscription is listed, with pageToken only 20 a page."));

export const ListDeliveriesQuery = z.object({
  ...pageQuery("default 20.", 20),
  status: z
    .enum(["pending", "succeeded", "failed", "cancelled"], { error: "status must be one of pending, succeeded, failed, cancelled" })
    .optional()
    .meta({ description: "Only deliveries in this state." }),
  statusClass: z
    .enum(STATUS_CLASSES, { error: `statusClass must be one of ${STATUS_CLASSES.join(", ")}` })
    .optional()
    .meta({
      description:
        "Only deliveries whose most recent attempt got a response of this class; `none`: no response arrived (timeout, connection error, refused target).",
    }),
  since: z.string({ error: "since must be a single string" }).optional().meta({
    format: "date-time",
    pattern: OFFSET_DATE_TIME.source,
    description: "Only deliveries created at or after this ISO 8601 date-time (with a UTC offset).",
  }),
  until: z.string({ error: "until must be a single string" }).optional().meta({
    format: "date-time",
    pattern: OFFSET_DATE_TIME.source,
    description: "Only deliveries created before this ISO 8601 date-time (with a UTC offset); after `since`.",
  }),
  meetingId: z
    .string({ error: "meetingId must be a single string" })
    .regex(MEETING_ID_TEXT, "meetingId is not a meeting id")
    .optional()
    .meta({ description: "Only deliveries of events about this meeting (its id, as `data.meetingId` of the event)." }),
});

// ---- Responses ------------------------------------------------------------------------------

const signingSecret = (description: string) => z.string().meta({ pattern: "^whsec_[A-Za-z0-9+/]{43}=$", description });

export const CreatedWebhook = z
  .object({
    webhookId: uuid(),
    url: z.string().meta({ format: "uri" }),
    events: z.array(z.string()),
    secret: signingSecret("`whsec_` + base64 of 32 random bytes: the Standard Webhooks signing secret. Shown only in this response; store it now."),
    createdAt: dateTime(),
    description: z.string(),
    rateLimitPerSecond: z.int().nullable().meta({ description: "Deliveries per second at most; null: no limit." }),
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
    description: z.string().meta({ description: "Free text; empty when none." }),
    rateLimitPerSecond: z.int().nullable().meta({ description: "Deliveries per second at most; null: no limit." }),
    previousSecretExpiresAt: dateTime(
      "Only during the grace window after a secret rotation: until then every delivery is signed with the previous secret as well as the current one.",
    ).optional(),
  })
  .meta({ id: "Webhook" });

export const RotatedSecret = z
  .object({
    webhookId: uuid(),
    secret: signingSecret("The new `whsec_` signing secret. Shown only in this response; store it now."),
    previousSecretExpiresAt: nullableDateTime(
      "Until then deliveries carry a signature with the previous secret too (`webhook-signature` holds both, space-separated), so receivers can switch without missing one; null when the deployment keeps no grace window.",
    ),
  })
  .meta({ id: "RotatedSecret" });

export const RecoveredDeliveries = z
  .object({
    webhookId: uuid(),
    recovered: z
      .int()
      .meta({ description: "Failed deliveries created in the window that are due again (one more attempt each, with their original `webhook-id`)." }),
    since: dateTime(),
    until: dateTime(),
  })
  .meta({ id: "RecoveredDeliveries" });

export const EventTypeList = z
  .object({
    eventTypes: z.array(
      z
        .object({
          type: z.string().meta({ examples: ["meeting.ended"] }),
          description: z.string(),
          schema: z.record(z.string(), z.unknown()).meta({
            description: "JSON Schema (draft 2020-12) of the event's `data`: the same schema this document gives under `webhooks`.",
          }),
        })
        .meta({ id: "EventType" }),
    ),
  })
  .meta({ id: "EventTypeList" });

export const WebhookList = z
  .object({
    webhooks: z.array(Webhook),
    nextPageToken: z
      .string()
      .nullable()
      .meta({ description: "Pass as `pageToken` for the next page; null on the last page and when every subscription was listed." }),
  })
  .meta({ id: "WebhookList" });

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
      description:
        "`pending`: an attempt is due or in flight; `failed`: every retry failed (or the subscription was disabled); `cancelled`: the subscription was deleted first.",
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
