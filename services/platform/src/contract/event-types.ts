/**
 * The event catalog: what subscribers may register for, each with what it means. Anything else
 * is refused at registration (by the webhook service); the gateway's OpenAPI document and
 * `GET /event-types` list the same types. `webhook.test` is not subscribable: it is only sent on request to one endpoint. The
 * bodies are built in the webhook service (payloads.ts) and documented in the OpenAPI document.
 */
export const EVENT_TYPE_DESCRIPTIONS = {
  "meeting.started": "The first participant entered the meeting room: the meeting is live.",
  "meeting.ended":
    "The meeting ended: its room stayed empty for the grace period after the last participant left, it was ended through the API, or a host ended it for everyone. Sent once per meeting, with everyone who was in the room and an attendance summary of those invited.",
  "meeting.updated": "The meeting's title, start, end or attendees changed (a reschedule, say); `changedFields` names them and `previous` has the old values.",
  "meeting.cancelled": "The meeting was cancelled before it ended; no meeting.ended follows.",
  "meeting.no_show":
    "An invited host or attendee had not joined (with their personal link) `noShowAfterMinutes` after the meeting's start: one event per person, sent once. Not sent for cancelled meetings or meetings without a start.",
  "participant.joined": "A participant entered the meeting room.",
  "participant.left": "A participant left the meeting room (or was disconnected, or removed when the meeting ended).",
  "recording.started": "A recording of the meeting's room started (by a host in the room, through the API, or by the meeting's `recording: auto` setting).",
  "recording.ready":
    "A recording's file is complete and can be downloaded (GET /recordings/{recordingId}/access-link): with its duration, size and layout. Sent once per recording.",
  "recording.failed":
    "A recording failed: the recorder reported a failure, or was lost (its process died) and the recording can never finish. Sent once per recording, with `error`.",
  "transcript.ready":
    "A transcript is complete: every speaker's audio was transcribed (GET /transcripts/{transcriptId} for the text, /access-link for WebVTT and JSON): with its speakers and duration. Sent once per transcript.",
  "transcript.failed": "A transcript failed: a speaker's audio could not be transcribed. Sent once per transcript, with `errorCode` and `error`.",
  "webhook.disabled":
    "One of the organization's webhook endpoints was disabled after it answered 410 Gone or kept failing: sent to the organization's other endpoints that subscribe to it, so someone hears about it.",
} as const;

export type SubscribableEventType = keyof typeof EVENT_TYPE_DESCRIPTIONS;
export const SUBSCRIBABLE_EVENT_TYPES = Object.keys(EVENT_TYPE_DESCRIPTIONS) as [SubscribableEventType, ...SubscribableEventType[]];
