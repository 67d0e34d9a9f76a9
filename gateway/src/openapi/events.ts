import type { OpenApiFragment } from "./document.ts";

// The requests subscribers receive (OpenAPI 3.1 `webhooks`): Standard Webhooks envelopes
// `{type, timestamp, data}`, signed in the `webhook-signature` header. The bodies are built by
// the webhook service (services/webhook/src/payloads.ts); this is their documentation.

const signatureHeaders = [
  { name: "webhook-id", in: "header", required: true, description: "Unique per event and subscription; the same on every retry (deduplicate on it).", schema: { type: "string" } },
  { name: "webhook-timestamp", in: "header", required: true, description: "Unix seconds when this attempt was signed.", schema: { type: "string" } },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description: "`v1,<base64 HMAC-SHA256 of \"<webhook-id>.<webhook-timestamp>.<body>\">` with the subscription's secret. Verify with a Standard Webhooks library.",
    schema: { type: "string" },
  },
];

const iso = (description: string) => ({ type: "string", format: "date-time", description });

const participantVisit = {
  type: "object",
  required: ["participantId", "displayName", "joinedAt", "leftAt"],
  properties: {
    participantId: { type: "string", description: "The identity the join grant gave (new for every join)." },
    displayName: { type: "string", maxLength: 64, description: "As the person entered it: escape it before showing it in HTML." },
    joinedAt: iso("When the participant entered the room."),
    leftAt: { type: ["string", "null"], format: "date-time", description: "When they left; null while present." },
  },
};

const envelope = (type: string, data: Record<string, unknown>) => ({
  type: "object",
  required: ["type", "timestamp", "data"],
  properties: { type: { type: "string", const: type }, timestamp: iso("When the event happened."), data },
});

const meetingFields = {
  meetingId: { type: "string" },
  orgId: { type: "string" },
  title: { type: "string" },
  start: { type: ["string", "null"], format: "date-time" },
  attendees: { type: "array", items: { type: "string", format: "email" } },
};

const event = (summary: string, schemaRef: string) => ({
  post: {
    summary,
    description: "Delivered at least once to every enabled subscription of the meeting's organization that lists this type; any 2xx within 15 s acknowledges it, anything else is retried on the retry schedule. Events of one meeting may arrive in any order: use `timestamp`.",
    tags: ["Webhook events"],
    parameters: signatureHeaders,
    requestBody: { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${schemaRef}` } } } },
    responses: { "2XX": { description: "Received." } },
  },
});

export const eventsOpenApi: OpenApiFragment = {
  paths: {},
  webhooks: {
    "meeting.started": event("The first participant entered the meeting room", "MeetingStartedEvent"),
    "meeting.ended": event("The meeting ended (emptied past the grace period, or ended through the API); sent once per meeting", "MeetingEndedEvent"),
    "meeting.updated": event("The meeting's title, start, end or attendees changed (a reschedule, say)", "MeetingUpdatedEvent"),
    "meeting.cancelled": event("The meeting was cancelled before it ended; no meeting.ended follows", "MeetingCancelledEvent"),
    "participant.joined": event("A participant entered the meeting room", "ParticipantJoinedEvent"),
    "participant.left": event("A participant left the meeting room (also when disconnected or removed at the end)", "ParticipantLeftEvent"),
  },
  schemas: {
    ParticipantVisit: participantVisit,
    MeetingStartedEvent: envelope("meeting.started", {
      type: "object",
      required: ["meetingId", "orgId", "title", "start", "startedAt", "attendees"],
      properties: { ...meetingFields, startedAt: iso("When the first participant entered.") },
    }),
    MeetingEndedEvent: envelope("meeting.ended", {
      type: "object",
      required: ["meetingId", "orgId", "title", "start", "endedAt", "attendees", "reason", "participants"],
      properties: {
        ...meetingFields,
        endedAt: iso("When the meeting ended."),
        reason: {
          type: ["string", "null"],
          enum: ["empty", "ended_by_api", "end_passed", null],
          description: "`empty`: the room stayed empty for the grace period (or emptied after the planned end); `ended_by_api`: POST /meeting/{id}/end; `end_passed`: the planned end passed and nobody had come.",
        },
        participants: { type: "array", items: { $ref: "#/components/schemas/ParticipantVisit" }, description: "Everyone who was in the room, one entry per visit (a rejoin is a second entry)." },
      },
    }),
    MeetingDetails: {
      type: "object",
      required: ["title", "start", "end", "attendees"],
      properties: {
        title: { type: "string" },
        start: { type: ["string", "null"], format: "date-time" },
        end: { type: ["string", "null"], format: "date-time", description: "The planned end." },
        attendees: { type: "array", items: { type: "string", format: "email" } },
      },
    },
    MeetingUpdatedEvent: envelope("meeting.updated", {
      type: "object",
      required: ["meetingId", "orgId", "title", "start", "end", "attendees", "changedFields", "previous"],
      properties: {
        meetingId: { type: "string" },
        orgId: { type: "string" },
        title: { type: "string" },
        start: { type: ["string", "null"], format: "date-time" },
        end: { type: ["string", "null"], format: "date-time" },
        attendees: { type: "array", items: { type: "string", format: "email" } },
        changedFields: { type: "array", items: { type: "string", enum: ["title", "start", "end", "attendees"] } },
        previous: { $ref: "#/components/schemas/MeetingDetails" },
      },
    }),
    MeetingCancelledEvent: envelope("meeting.cancelled", {
      type: "object",
      required: ["meetingId", "orgId", "title", "start", "end", "attendees", "cancelledAt"],
      properties: {
        meetingId: { type: "string" },
        orgId: { type: "string" },
        title: { type: "string" },
        start: { type: ["string", "null"], format: "date-time" },
        end: { type: ["string", "null"], format: "date-time" },
        attendees: { type: "array", items: { type: "string", format: "email" } },
        cancelledAt: { type: "string", format: "date-time" },
      },
    }),
    ParticipantJoinedEvent: envelope("participant.joined", {
      type: "object",
      required: ["meetingId", "orgId", "participant"],
      properties: { meetingId: { type: "string" }, orgId: { type: "string" }, participant: { $ref: "#/components/schemas/ParticipantVisit" } },
    }),
    ParticipantLeftEvent: envelope("participant.left", {
      type: "object",
      required: ["meetingId", "orgId", "participant"],
      properties: { meetingId: { type: "string" }, orgId: { type: "string" }, participant: { $ref: "#/components/schemas/ParticipantVisit" } },
    }),
  },
};
