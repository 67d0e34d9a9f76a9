import { z } from "zod";
import { meetingLimits, type SubscribableEventType } from "@svc/platform/contract";
import { dateTime, nullableDateTime } from "./common.ts";

// The requests subscribers receive (OpenAPI 3.1 `webhooks`): Standard Webhooks envelopes
// `{type, timestamp, data}`, signed in the `webhook-signature` header. The webhook service builds
// the bodies (services/webhook/src/payloads.ts); these schemas document them, and the tests
// compare delivered bodies with them.

export const SignatureHeaders = z.object({
  "webhook-id": z.string().meta({ description: "Unique per event and subscription; the same on every retry (deduplicate on it)." }),
  "webhook-timestamp": z.string().meta({ description: "Unix seconds when this attempt was signed." }),
  "webhook-signature": z.string().meta({
    description:
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` with the subscription\'s secret. Verify with a Standard Webhooks library.',
  }),
});

const emails = z.array(z.string().meta({ format: "email" }));

export const ParticipantVisit = z
  .object({
    participantId: z.string().meta({ description: "The identity the join grant gave (new for every join)." }),
    displayName: z
      .string()
      .meta({ maxLength: meetingLimits.displayNameMaxLength, description: "As the person entered it: escape it before showing it in HTML." }),
    joinedAt: dateTime("When the participant entered the room."),
    leftAt: nullableDateTime("When they left; null while present."),
  })
  .meta({ id: "ParticipantVisit" });

const envelope = <T extends z.ZodType>(type: string, data: T, id: string) =>
  z.object({ type: z.literal(type), timestamp: dateTime("When the event happened."), data }).meta({ id });

interface EventEntry {
  summary: string;
  schema: z.ZodObject<{ type: z.ZodLiteral<string>; timestamp: z.ZodString; data: z.ZodType }>;
}

const meetingFields = { meetingId: z.string(), orgId: z.string(), title: z.string(), start: nullableDateTime(), attendees: emails };
/** A planned meeting's fields, for the events about its plan (changed, cancelled). */
const plannedMeetingFields = { ...meetingFields, end: nullableDateTime() };

export const MeetingDetails = z
  .object({ title: z.string(), start: nullableDateTime(), end: nullableDateTime("The planned end."), attendees: emails })
  .meta({ id: "MeetingDetails" });

export const meetingEvents = {
  "meeting.started": {
    summary: "The first participant entered the meeting room",
    schema: envelope("meeting.started", z.object({ ...meetingFields, startedAt: dateTime("When the first participant entered.") }), "MeetingStartedEvent"),
  },
  "meeting.ended": {
    summary: "The meeting ended (emptied past the grace period, or ended through the API); sent once per meeting",
    schema: envelope(
      "meeting.ended",
      z.object({
        ...meetingFields,
        endedAt: dateTime("When the meeting ended."),
        reason: z.enum(["empty", "ended_by_api", "end_passed"]).nullable().meta({
          description:
            "`empty`: the room stayed empty for the grace period (or emptied after the planned end); `ended_by_api`: POST /meeting/{id}/end; `end_passed`: the planned end passed and nobody had come.",
        }),
        participants: z.array(ParticipantVisit).meta({ description: "Everyone who was in the room, one entry per visit (a rejoin is a second entry)." }),
      }),
      "MeetingEndedEvent",
    ),
  },
  "meeting.updated": {
    summary: "The meeting's title, start, end or attendees changed (a reschedule, say)",
    schema: envelope(
      "meeting.updated",
      z.object({
        ...plannedMeetingFields,
        changedFields: z.array(z.enum(["title", "start", "end", "attendees"])),
        previous: MeetingDetails,
      }),
      "MeetingUpdatedEvent",
    ),
  },
  "meeting.cancelled": {
    summary: "The meeting was cancelled before it ended; no meeting.ended follows",
    schema: envelope(
      "meeting.cancelled",
      z.object({
        ...plannedMeetingFields,
        cancelledAt: dateTime(),
      }),
      "MeetingCancelledEvent",
    ),
  },
  "participant.joined": {
    summary: "A participant entered the meeting room",
    schema: envelope("participant.joined", z.object({ meetingId: z.string(), orgId: z.string(), participant: ParticipantVisit }), "ParticipantJoinedEvent"),
  },
  "participant.left": {
    summary: "A participant left the meeting room (also when disconnected or removed at the end)",
    schema: envelope("participant.left", z.object({ meetingId: z.string(), orgId: z.string(), participant: ParticipantVisit }), "ParticipantLeftEvent"),
  },
} as const satisfies Partial<Record<SubscribableEventType, EventEntry>>;

/** Events about the webhook endpoints themselves. */
export const operationalEvents = {
  "webhook.disabled": {
    summary: "One of the organization's webhook endpoints was disabled (410 Gone, or continuous failure); sent to its other endpoints",
    schema: envelope(
      "webhook.disabled",
      z.object({
        webhookId: z.string().meta({ format: "uuid", description: "The endpoint that was disabled." }),
        orgId: z.string(),
        host: z.string().meta({
          description:
            "The host (and port, if not the default) of the disabled endpoint's URL: never its path or query, which may hold a token. GET /webhook/{webhookId} answers the whole URL to a caller allowed to read it.",
          example: "hooks.example.com",
        }),
        disabledAt: dateTime(),
        trigger: z.enum(["gone", "continuous_failure"]).meta({
          description: "`gone`: the endpoint answered 410 Gone; `continuous_failure`: every attempt failed for the disable period (5 days by default).",
        }),
        reason: z.string().meta({ description: "In words, as `disabledReason` in the webhook list." }),
        failingSince: nullableDateTime("The first failed attempt since the last success."),
      }),
      "WebhookDisabledEvent",
    ),
  },
} as const satisfies Partial<Record<SubscribableEventType, EventEntry>>;

/**
 * Every event a subscription may list, with the schema of its body: the OpenAPI document's
 * `webhooks` and GET /event-types are both generated from it.
 */
export const eventCatalog = { ...meetingEvents, ...operationalEvents } as const satisfies Record<SubscribableEventType, EventEntry>;

/**
 * The JSON Schema (draft 2020-12) of an event's `data`, self-contained (`$defs` for shared parts),
 * rendered as the document renders request bodies (input side: no ban on fields added later).
 */
export function dataJsonSchema(type: SubscribableEventType): Record<string, unknown> {
  return z.toJSONSchema(eventCatalog[type].schema.shape.data, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}
