import { fromBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import {
  MeetingCancelledSchema,
  MeetingEndedSchema,
  MeetingEndReason,
  MeetingNoShowSchema,
  MeetingStartedSchema,
  MeetingUpdatedSchema,
  ParticipantJoinedSchema,
  ParticipantLeftSchema,
  RecordingFailedSchema,
  RecordingReadySchema,
  RecordingStartedSchema,
  TranscriptFailedSchema,
  TranscriptReadySchema,
  type TranscriptFailed,
  type TranscriptReady,
  type TranscriptSnapshot,
  type RecordingFailed,
  type RecordingReady,
  type RecordingSnapshot,
  type RecordingStarted,
  type MeetingCancelled,
  type MeetingEnded,
  type MeetingNoShow,
  type Attendance,
  type MeetingSnapshot,
  type MeetingUpdated,
  type MeetingStarted,
  type ParticipantJoined,
  type ParticipantLeft,
  type ParticipantVisit,
} from "@svc/proto/svc/meeting/v1/events_pb";
import { TEST_EVENT_TYPE, type SubscribableEventType } from "./event-types.ts";

/**
 * The bodies receivers get (Standard Webhooks: `{type, timestamp, data}`, camelCase in `data`).
 * A body is built once when the event is stored and sent byte for byte on every attempt, so the
 * signature always covers exactly what was stored.
 */
export interface EventBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

const iso = (timestamp: Timestamp | undefined) => (timestamp ? timestampDate(timestamp).toISOString() : null);

/** When the event happened; an event from a producer that did not stamp it counts as happening now. */
const occurredAt = (event: { occurredAt?: Timestamp | undefined }) => iso(event.occurredAt) ?? new Date().toISOString();

function requireSnapshot(meeting: MeetingSnapshot | undefined, what: string): MeetingSnapshot {
  if (!meeting) throw new Error(`${what} without a meeting snapshot`);
  return meeting;
}

function requireVisit(participant: ParticipantVisit | undefined, what: string): ParticipantVisit {
  if (!participant) throw new Error(`${what} without a participant`);
  return participant;
}

const participantData = (visit: ParticipantVisit) => ({
  participantId: visit.participantId,
  displayName: visit.displayName,
  joinedAt: iso(visit.joinedAt),
  leftAt: iso(visit.leftAt),
  // Events stored before roles existed have none: they were guests of the plain URL.
  role: visit.role || "guest",
  email: visit.email || null,
});

/** `meeting.ended`'s attendance: each invited host and attendee, and the number of uninvited guests. */
const attendanceData = (attendance: Attendance | undefined) => ({
  invitees: (attendance?.invitees ?? []).map((invitee) => ({
    email: invitee.email,
    role: invitee.role,
    joined: invitee.joined,
    firstJoinedAt: iso(invitee.firstJoinedAt),
    totalSeconds: Number(invitee.totalSeconds),
  })),
  guests: attendance?.guestCount ?? 0,
});

const endReasons: Record<MeetingEndReason, string | null> = {
  [MeetingEndReason.UNSPECIFIED]: null,
  [MeetingEndReason.ENDED_BY_API]: "ended_by_api",
  [MeetingEndReason.EMPTY]: "empty",
  [MeetingEndReason.END_PASSED]: "end_passed",
  [MeetingEndReason.ENDED_BY_HOST]: "ended_by_host",
};

export function meetingEndedBody(event: MeetingEnded): EventBody {
  const meeting = requireSnapshot(event.meeting, "MeetingEnded");
  const endedAt = iso(meeting.endedAt) ?? occurredAt(event);
  return {
    type: "meeting.ended",
    timestamp: iso(event.occurredAt) ?? endedAt,
    data: {
      meetingId: meeting.id,
      orgId: event.orgId,
      title: meeting.title,
      start: iso(meeting.start),
      endedAt,
      attendees: [...meeting.attendees],
      reason: endReasons[event.reason],
      participants: event.participants.map(participantData),
      attendance: attendanceData(event.attendance),
    },
  };
}

export function meetingNoShowBody(event: MeetingNoShow): EventBody {
  return {
    type: "meeting.no_show",
    timestamp: occurredAt(event),
    data: { meetingId: event.meetingId, orgId: event.orgId, title: event.title, email: event.email, role: event.role, start: iso(event.start) },
  };
}

export function meetingStartedBody(event: MeetingStarted): EventBody {
  const meeting = requireSnapshot(event.meeting, "MeetingStarted");
  const startedAt = occurredAt(event);
  return {
    type: "meeting.started",
    timestamp: startedAt,
    data: { meetingId: meeting.id, orgId: event.orgId, title: meeting.title, start: iso(meeting.start), startedAt, attendees: [...meeting.attendees] },
  };
}

const meetingDetails = (meeting: MeetingSnapshot) => ({
  title: meeting.title,
  start: iso(meeting.start),
  end: iso(meeting.end),
  attendees: [...meeting.attendees],
});

export function meetingUpdatedBody(event: MeetingUpdated): EventBody {
  const meeting = requireSnapshot(event.meeting, "MeetingUpdated");
  return {
    type: "meeting.updated",
    timestamp: occurredAt(event),
    data: {
      meetingId: meeting.id,
      orgId: event.orgId,
      ...meetingDetails(meeting),
      changedFields: [...event.changedFields],
      previous: meetingDetails(requireSnapshot(event.previous, "MeetingUpdated (previous)")),
    },
  };
}

export function meetingCancelledBody(event: MeetingCancelled): EventBody {
  const meeting = requireSnapshot(event.meeting, "MeetingCancelled");
  const cancelledAt = occurredAt(event);
  return {
    type: "meeting.cancelled",
    timestamp: cancelledAt,
    data: { meetingId: meeting.id, orgId: event.orgId, ...meetingDetails(meeting), cancelledAt },
  };
}

function participantBody(type: "participant.joined" | "participant.left", event: ParticipantJoined | ParticipantLeft): EventBody {
  const participant = requireVisit(event.participant, type);
  return {
    type,
    timestamp: occurredAt(event),
    data: { meetingId: event.meetingId, orgId: event.orgId, participant: participantData(participant) },
  };
}

function requireRecording(recording: RecordingSnapshot | undefined, what: string): RecordingSnapshot {
  if (!recording) throw new Error(`${what} without a recording snapshot`);
  return recording;
}

const recordingData = (recording: RecordingSnapshot, orgId: string) => ({
  recordingId: recording.recordingId,
  meetingId: recording.meetingId,
  orgId,
  layout: recording.layout,
  startedBy: recording.startedBy,
  startedAt: iso(recording.startedAt),
});

export function recordingStartedBody(event: RecordingStarted): EventBody {
  const recording = requireRecording(event.recording, "RecordingStarted");
  return { type: "recording.started", timestamp: occurredAt(event), data: recordingData(recording, event.orgId) };
}

export function recordingReadyBody(event: RecordingReady): EventBody {
  const recording = requireRecording(event.recording, "RecordingReady");
  return {
    type: "recording.ready",
    timestamp: occurredAt(event),
    data: {
      ...recordingData(recording, event.orgId),
      endedAt: iso(recording.endedAt),
      durationSeconds: recording.durationSeconds ?? 0,
      sizeBytes: Number(recording.sizeBytes ?? 0n),
    },
  };
}

export function recordingFailedBody(event: RecordingFailed): EventBody {
  const recording = requireRecording(event.recording, "RecordingFailed");
  return {
    type: "recording.failed",
    timestamp: occurredAt(event),
    data: { ...recordingData(recording, event.orgId), endedAt: iso(recording.endedAt), errorCode: event.errorCode, error: event.error },
  };
}

function requireTranscript(transcript: TranscriptSnapshot | undefined, what: string): TranscriptSnapshot {
  if (!transcript) throw new Error(`${what} without a transcript snapshot`);
  return transcript;
}

const transcriptData = (transcript: TranscriptSnapshot, orgId: string) => ({
  transcriptId: transcript.transcriptId,
  meetingId: transcript.meetingId,
  orgId,
  language: transcript.language,
  createdAt: iso(transcript.createdAt),
  completedAt: iso(transcript.completedAt),
  speakers: transcript.speakers.map((speaker) => ({ name: speaker.displayName, email: speaker.email || null })),
});

export function transcriptReadyBody(event: TranscriptReady): EventBody {
  const transcript = requireTranscript(event.transcript, "TranscriptReady");
  return {
    type: "transcript.ready",
    timestamp: occurredAt(event),
    data: { ...transcriptData(transcript, event.orgId), durationSeconds: transcript.durationSeconds ?? null },
  };
}

export function transcriptFailedBody(event: TranscriptFailed): EventBody {
  const transcript = requireTranscript(event.transcript, "TranscriptFailed");
  return {
    type: "transcript.failed",
    timestamp: occurredAt(event),
    data: { ...transcriptData(transcript, event.orgId), errorCode: event.errorCode, error: event.error },
  };
}

/** A decoded meeting event, ready to store as deliveries. */
export interface DecodedEvent {
  eventId: string;
  orgId: string;
  body: EventBody;
}

interface EventMapping<Desc extends DescMessage> {
  schema: Desc;
  type: SubscribableEventType;
  body: (message: MessageShape<Desc>) => EventBody;
}

const mapping = <Desc extends DescMessage>(entry: EventMapping<Desc>) => entry as unknown as EventMapping<DescMessage>;

/** Each event message of `meeting.events` by its protobuf type name, with the webhook event it becomes. */
const meetingEventMappings = new Map(
  [
    mapping({ schema: MeetingStartedSchema, type: "meeting.started", body: meetingStartedBody }),
    mapping({ schema: MeetingNoShowSchema, type: "meeting.no_show", body: meetingNoShowBody }),
    mapping({ schema: MeetingEndedSchema, type: "meeting.ended", body: meetingEndedBody }),
    mapping({ schema: MeetingUpdatedSchema, type: "meeting.updated", body: meetingUpdatedBody }),
    mapping({ schema: MeetingCancelledSchema, type: "meeting.cancelled", body: meetingCancelledBody }),
    mapping({ schema: ParticipantJoinedSchema, type: "participant.joined", body: (event) => participantBody("participant.joined", event) }),
    mapping({ schema: ParticipantLeftSchema, type: "participant.left", body: (event) => participantBody("participant.left", event) }),
    mapping({ schema: RecordingStartedSchema, type: "recording.started", body: recordingStartedBody }),
    mapping({ schema: RecordingReadySchema, type: "recording.ready", body: recordingReadyBody }),
    mapping({ schema: RecordingFailedSchema, type: "recording.failed", body: recordingFailedBody }),
    mapping({ schema: TranscriptReadySchema, type: "transcript.ready", body: transcriptReadyBody }),
    mapping({ schema: TranscriptFailedSchema, type: "transcript.failed", body: transcriptFailedBody }),
  ].map((entry) => [entry.schema.typeName, entry]),
);

/**
 * Decodes one message of `meeting.events` into the webhook event it becomes; undefined for a
 * message type that is not delivered. Throws on a malformed message.
 */
export function decodeMeetingEvent(typeName: string, value: Uint8Array): DecodedEvent | undefined {
  const entry = meetingEventMappings.get(typeName);
  if (!entry) return undefined;
  const message = fromBinary(entry.schema, value) as MessageShape<DescMessage> & { eventId: string; orgId: string };
  return { eventId: message.eventId, orgId: message.orgId, body: entry.body(message) };
}

export function testEventBody(webhookId: string, orgId: string, now = new Date()): EventBody {
  return {
    type: TEST_EVENT_TYPE,
    timestamp: now.toISOString(),
    data: { webhookId, orgId, message: "This is a test event sent on request; it carries no meeting data." },
  };
}

/** The subscription that was just disabled, as its `webhook.disabled` event describes it. */
export interface DisabledSubscription {
  id: string;
  orgId: string;
  url: string;
  disabledAt: Date;
  reason: string;
  trigger: "gone" | "continuous_failure";
  failingSince: Date | null;
}

/**
 * `webhook.disabled`: sent to the organization's other endpoints when one is disabled
 * automatically. It names the endpoint by its id and its URL's host only: the full URL can carry
 * a token in its path or query, and the recipients include endpoints registered by applications
 * that may not read webhooks (no `webhook.read` scope).
 */
export function webhookDisabledBody(disabled: DisabledSubscription): EventBody {
  return {
    type: "webhook.disabled",
    timestamp: disabled.disabledAt.toISOString(),
    data: {
      webhookId: disabled.id,
      orgId: disabled.orgId,
      host: new URL(disabled.url).host,
      disabledAt: disabled.disabledAt.toISOString(),
      trigger: disabled.trigger,
      reason: disabled.reason,
      failingSince: disabled.failingSince?.toISOString() ?? null,
    },
  };
}
