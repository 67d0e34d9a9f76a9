import { z } from "zod";
import { meetingLimits, type SubscribableEventType } from "@svc/platform/contract";
import { dateTime, nullableDateTime } from "./common.ts";
import { RecordingErrorCode } from "./recording.ts";
import { TranscriptErrorCode, TranscriptSpeaker } from "./transcript.ts";

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
    role: z.enum(["host", "attendee", "guest"]).meta({ description: "From their personal link (`guest` for the plain join URL)." }),
    email: z.string().nullable().meta({ format: "email", description: "The invited person's address, when they entered with their personal link." }),
  })
  .meta({ id: "ParticipantVisit" });

export const Attendance = z
  .object({
    invitees: z
      .array(
        z.object({
          email: z.string().meta({ format: "email" }),
          role: z.enum(["host", "attendee"]),
          joined: z.boolean().meta({ description: "They entered the room with their personal link." }),
          firstJoinedAt: nullableDateTime("Their first entry; null when they did not join."),
          totalSeconds: z.number().int().meta({ description: "The sum of their visits, in seconds." }),
        }),
      )
      .meta({ description: "Each invited host and attendee, hosts first, in the order invited." }),
    guests: z.number().int().meta({ description: "Entries by people who were not an invited person with their personal link." }),
  })
  .meta({ id: "Attendance" });

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
        reason: z.enum(["empty", "ended_by_api", "end_passed", "ended_by_host"]).nullable().meta({
          description:
            "`empty`: the room stayed empty for the grace period (or emptied after the planned end); `ended_by_api`: POST /meeting/{id}/end; `end_passed`: the planned end passed and nobody had come; `ended_by_host`: a host ended it for everyone in the room.",
        }),
        participants: z.array(ParticipantVisit).meta({ description: "Everyone who was in the room, one entry per visit (a rejoin is a second entry)." }),
        attendance: Attendance,
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
        changedFields: z.array(
          z.enum(["title", "start", "end", "attendees", "hosts", "lobby", "screenShare", "noShowAfterMinutes", "recording", "transcription"]),
        ),
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
  "meeting.no_show": {
    summary: "An invited host or attendee had not joined noShowAfterMinutes after the start; once per person",
    schema: envelope(
      "meeting.no_show",
      z.object({
        meetingId: z.string(),
        orgId: z.string(),
        title: z.string(),
        email: z.string().meta({ format: "email" }),
        role: z.enum(["host", "attendee"]),
        start: dateTime("The meeting's start."),
      }),
      "MeetingNoShowEvent",
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

const recordingFields = {
  recordingId: z.string().meta({ format: "uuid" }),
  meetingId: z.string(),
  orgId: z.string(),
  layout: z.enum(["grid", "audio"]),
  startedBy: z.enum(["host", "api", "auto"]),
  startedAt: dateTime("When the recording started."),
};

/** A meeting's recordings (docs/meeting-room.md, "Recording"). */
export const recordingEvents = {
  "recording.started": {
    summary: "A recording of the meeting's room started",
    schema: envelope("recording.started", z.object(recordingFields), "RecordingStartedEvent"),
  },
  "recording.ready": {
    summary: "A recording's file is complete: get a download link with GET /recordings/{recordingId}/access-link",
    schema: envelope(
      "recording.ready",
      z.object({
        ...recordingFields,
        endedAt: dateTime("When the recording stopped."),
        durationSeconds: z.number().meta({ description: "The file's duration." }),
        sizeBytes: z.number().int().meta({ description: "The file's size." }),
      }),
      "RecordingReadyEvent",
    ),
  },
  "recording.failed": {
    summary: "A recording failed: the recorder reported a failure, or was lost (its process died)",
    schema: envelope(
      "recording.failed",
      z.object({
        ...recordingFields,
        endedAt: nullableDateTime("When it stopped."),
        // Always sent; optional in the document because a new required field of a webhook's body
        // is a breaking change to the contract (scripts/check-rest-breaking).
        errorCode: RecordingErrorCode.optional(),
        error: z.string().meta({ description: "Why, in words (those of `errorCode`)." }),
      }),
      "RecordingFailedEvent",
    ),
  },
} as const satisfies Partial<Record<SubscribableEventType, EventEntry>>;

const transcriptFields = {
  transcriptId: z.string().meta({ format: "uuid" }),
  meetingId: z.string(),
  orgId: z.string(),
  language: z.string().meta({ description: 'BCP 47 (`"en"`).' }),
  createdAt: dateTime("When transcription began."),
  completedAt: dateTime("When it became ready or failed."),
  speakers: z.array(TranscriptSpeaker).meta({ description: "Whose audio it is made from, one entry per participant's audio track." }),
};

/** A meeting's transcripts (docs/transcription.md). */
export const transcriptEvents = {
  "transcript.ready": {
    summary: "A transcript is complete: read it with GET /transcripts/{transcriptId}, or get WebVTT and JSON links with /access-link",
    schema: envelope(
      "transcript.ready",
      z.object({
        ...transcriptFields,
        durationSeconds: z
          .number()
          .nullable()
          .meta({ description: "Where the last speech ends, in seconds of the meeting's time line; null when nothing was said." }),
      }),
      "TranscriptReadyEvent",
    ),
  },
  "transcript.failed": {
    summary: "A transcript failed: a speaker's audio could not be transcribed",
    schema: envelope(
      "transcript.failed",
      z.object({ ...transcriptFields, errorCode: TranscriptErrorCode, error: z.string().meta({ description: "Why, in words (those of `errorCode`)." }) }),
      "TranscriptFailedEvent",
    ),
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
export const eventCatalog = { ...meetingEvents, ...recordingEvents, ...transcriptEvents, ...operationalEvents } as const satisfies Record<
  SubscribableEventType,
  EventEntry
>;

/**
 * The JSON Schema (draft 2020-12) of an event's `data`, self-contained (`$defs` for shared parts),
 * rendered as the document renders request bodies (input side: no ban on fields added later).
 */
export function dataJsonSchema(type: SubscribableEventType): Record<string, unknown> {
  return z.toJSONSchema(eventCatalog[type].schema.shape.data, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Record<string, unknown>;
}
