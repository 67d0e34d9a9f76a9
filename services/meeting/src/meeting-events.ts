import { randomUUID } from "node:crypto";
import { create, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  MeetingEndedSchema,
  MeetingNoShowSchema,
  MeetingEndReason,
  MeetingCancelledSchema,
  MeetingStartedSchema,
  MeetingUpdatedSchema,
  ParticipantJoinedSchema,
  ParticipantLeftSchema,
  RecordingFailedSchema,
  RecordingReadySchema,
  RecordingStartedSchema,
  TranscriptFailedSchema,
  TranscriptReadySchema,
  type TranscriptSnapshotSchema,
  type AttendanceSchema,
  type RecordingSnapshotSchema,
  type MeetingSnapshotSchema,
  type ParticipantVisitSchema,
} from "@svc/proto/svc/meeting/v1/events_pb";
import { recordingFailureMessages, transcriptionFailureMessages } from "@svc/platform/contract";
import type { MeetingEndCause, StoredMeeting } from "./meeting-store.ts";
import type { RoomVisit } from "./visit-store.ts";
import type { StoredRecording } from "./recording-store.ts";
import type { TranscriptEvents } from "./db/transcription-jobs.ts";
import type { StoredTranscript } from "./transcript-store.ts";
import type { OutboxEvent } from "./db/outbox.ts";
import { peopleOf } from "./attendance.ts";

/** The logical topic of meeting lifecycle events (the bus adds the deployment's prefix). */
export const MEETING_EVENTS_TOPIC = "meeting.events";

/**
 * Wraps one event message for the outbox: keyed by meeting id so one meeting's events stay in
 * order, typed by the message's full name, with a fresh event id consumers deduplicate on.
 */
function outboxEvent<Desc extends DescMessage>(schema: Desc, meetingId: string, build: (eventId: string) => MessageInitShape<Desc>): OutboxEvent {
  const eventId = randomUUID();
  return {
    topic: MEETING_EVENTS_TOPIC,
    key: meetingId,
    id: eventId,
    type: schema.typeName,
    value: toBinary(schema, create(schema, build(eventId))),
  };
}

const snapshot = (meeting: StoredMeeting): MessageInitShape<typeof MeetingSnapshotSchema> => ({
  id: meeting.id,
  title: meeting.title,
  start: meeting.start ? timestampFromDate(meeting.start) : undefined,
  endedAt: meeting.endedAt ? timestampFromDate(meeting.endedAt) : undefined,
  end: meeting.end ? timestampFromDate(meeting.end) : undefined,
  attendees: meeting.attendees,
  createdByUserId: meeting.createdByUserId,
});

const visit = (participant: RoomVisit): MessageInitShape<typeof ParticipantVisitSchema> => ({
  participantId: participant.participantId,
  displayName: participant.displayName,
  joinedAt: timestampFromDate(participant.joinedAt),
  leftAt: participant.leftAt ? timestampFromDate(participant.leftAt) : undefined,
  role: participant.role ?? "guest",
  email: participant.email ?? "",
});

/**
 * Who of those invited came, and for how long (the sum of their visits with their personal link),
 * and how many uninvited guests: people as peopleOf tells them apart (attendance.ts).
 */
export function attendanceOf(
  meeting: Pick<StoredMeeting, "hosts" | "attendees">,
  visits: RoomVisit[],
  endedAt: Date,
): MessageInitShape<typeof AttendanceSchema> {
  const people = peopleOf(meeting, visits, endedAt);
  return {
    guestCount: people.filter((person) => !person.invited).length,
    invitees: people
      .filter((person) => person.invited)
      .map(({ email, role, visits: theirs, totalSeconds }) => {
        const first = theirs.reduce<Date | undefined>((earliest, one) => (!earliest || one.joinedAt < earliest ? one.joinedAt : earliest), undefined);
        return {
          email: email!,
          role,
          joined: theirs.length > 0,
          firstJoinedAt: first ? timestampFromDate(first) : undefined,
          totalSeconds: BigInt(totalSeconds),
        };
      }),
  };
}

/** `meeting.no_show`: an invited host or attendee had not joined `noShowAfterMinutes` after the start. */
export function meetingNoShowEvent(
  meeting: { id: string; orgId: string; title: string; start: Date },
  person: { email: string; role: "host" | "attendee" },
): OutboxEvent {
  return outboxEvent(MeetingNoShowSchema, meeting.id, (eventId) => ({
    eventId,
    occurredAt: timestampFromDate(new Date()),
    orgId: meeting.orgId,
    meetingId: meeting.id,
    email: person.email,
    role: person.role,
    start: timestampFromDate(meeting.start),
    title: meeting.title,
  }));
}

const endReasons: Record<MeetingEndCause, MeetingEndReason> = {
  api: MeetingEndReason.ENDED_BY_API,
  empty: MeetingEndReason.EMPTY,
  end_passed: MeetingEndReason.END_PASSED,
  host: MeetingEndReason.ENDED_BY_HOST,
};

/** `meeting.ended`, with everyone who was in the room. */
export function meetingEndedEvent(meeting: StoredMeeting, visits: RoomVisit[], cause: MeetingEndCause): OutboxEvent {
  const endedAt = meeting.endedAt ?? new Date();
  return outboxEvent(MeetingEndedSchema, meeting.id, (eventId) => ({
    eventId,
    occurredAt: timestampFromDate(endedAt),
    orgId: meeting.orgId,
    meeting: { ...snapshot(meeting), endedAt: timestampFromDate(endedAt) },
    participants: visits.map(visit),
    reason: endReasons[cause],
    attendance: attendanceOf(meeting, visits, endedAt),
  }));
}

/** `meeting.started`: the first participant entered the room. */
export function meetingStartedEvent(meeting: StoredMeeting, startedAt: Date): OutboxEvent {
  return outboxEvent(MeetingStartedSchema, meeting.id, (eventId) => ({
    eventId,
    occurredAt: timestampFromDate(startedAt),
    orgId: meeting.orgId,
    meeting: snapshot(meeting),
  }));
}

export function participantJoinedEvent(meeting: StoredMeeting, participant: RoomVisit): OutboxEvent {
  return outboxEvent(ParticipantJoinedSchema, meeting.id, (eventId) => ({
    eventId,
    occurredAt: timestampFromDate(participant.joinedAt),
    orgId: meeting.orgId,
    meetingId: meeting.id,
    participant: visit(participant),
  }));
}

export function participantLeftEvent(meeting: StoredMeeting, participant: RoomVisit): OutboxEvent {
  return outboxEvent(ParticipantLeftSchema, meeting.id, (eventId) => ({
    eventId,
    occurredAt: timestampFromDate(participant.leftAt ?? new Date()),
    orgId: meeting.orgId,
    meetingId: meeting.id,
    participant: visit(participant),
  }));
}

/** `meeting.updated`: its details changed (`changed` names them). */
export function meetingUpdatedEvent(previous: StoredMeeting, meeting: StoredMeeting, changed: string[]): OutboxEvent {
  return outboxEvent(MeetingUpdatedSchema, meeting.id, (eventId) => ({
    eventId,
    occurredAt: timestampFromDate(new Date()),
    orgId: meeting.orgId,
    meeting: snapshot(meeting),
    changedFields: changed,
    previous: snapshot(previous),
  }));
}

/** `meeting.cancelled`: it will not take place (no `meeting.ended` follows). */
export function meetingCancelledEvent(meeting: StoredMeeting): OutboxEvent {
  return outboxEvent(MeetingCancelledSchema, meeting.id, (eventId) => ({
    eventId,
    occurredAt: timestampFromDate(meeting.cancelledAt ?? new Date()),
    orgId: meeting.orgId,
    meeting: snapshot(meeting),
  }));
}

const recordingSnapshot = (recording: StoredRecording): MessageInitShape<typeof RecordingSnapshotSchema> => ({
  recordingId: recording.id,
  meetingId: recording.meetingId,
  layout: recording.layout,
  startedAt: timestampFromDate(recording.startedAt),
  endedAt: recording.endedAt ? timestampFromDate(recording.endedAt) : undefined,
  durationSeconds: recording.durationMs === null ? undefined : recording.durationMs / 1_000,
  sizeBytes: recording.sizeBytes === null ? undefined : BigInt(recording.sizeBytes),
  startedBy: recording.startedBy,
});

/** A recording event: its id and time, the recording's organization and snapshot. */
const recordingEvent = (schema: typeof RecordingStartedSchema | typeof RecordingReadySchema, recording: StoredRecording, occurredAt: Date): OutboxEvent =>
  outboxEvent(schema, recording.meetingId, (eventId) => ({
    eventId,
    occurredAt: timestampFromDate(occurredAt),
    orgId: recording.orgId,
    recording: recordingSnapshot(recording),
  }));

/** `recording.started`: the recorder accepted and records the meeting's room. */
export const recordingStartedEvent = (recording: StoredRecording): OutboxEvent => recordingEvent(RecordingStartedSchema, recording, recording.startedAt);

/** `recording.ready`: the file is complete. */
export const recordingReadyEvent = (recording: StoredRecording): OutboxEvent => recordingEvent(RecordingReadySchema, recording, new Date());

/** `recording.failed`: the recorder failed or was lost. */
export function recordingFailedEvent(recording: StoredRecording): OutboxEvent {
  return outboxEvent(RecordingFailedSchema, recording.meetingId, (eventId) => ({
    eventId,
    occurredAt: timestampFromDate(new Date()),
    orgId: recording.orgId,
    recording: recordingSnapshot(recording),
    error: recording.error ?? recordingFailureMessages.recorder_failed,
    errorCode: recording.errorCode ?? "recorder_failed",
  }));
}

const transcriptSnapshot = (transcript: StoredTranscript): MessageInitShape<typeof TranscriptSnapshotSchema> => ({
  transcriptId: transcript.id,
  meetingId: transcript.meetingId,
  language: transcript.language,
  createdAt: timestampFromDate(transcript.createdAt),
  completedAt: timestampFromDate(transcript.completedAt ?? new Date()),
  durationSeconds: transcript.durationMs === null ? undefined : transcript.durationMs / 1_000,
  speakers: transcript.speakers.map((speaker) => ({ displayName: speaker.displayName, email: speaker.email ?? "" })),
});

/** `transcript.ready` and `transcript.failed`, written by the transaction that ends the transcript (db/transcription-jobs.ts). */
export const transcriptEvents: TranscriptEvents = {
  ready: (transcript) =>
    outboxEvent(TranscriptReadySchema, transcript.meetingId, (eventId) => ({
      eventId,
      occurredAt: timestampFromDate(transcript.completedAt ?? new Date()),
      orgId: transcript.orgId,
      transcript: transcriptSnapshot(transcript),
    })),
  failed: (transcript) => {
    const code = transcript.errorCode ?? "transcriber_failed";
    return outboxEvent(TranscriptFailedSchema, transcript.meetingId, (eventId) => ({
      eventId,
      occurredAt: timestampFromDate(transcript.completedAt ?? new Date()),
      orgId: transcript.orgId,
      transcript: transcriptSnapshot(transcript),
      error: transcriptionFailureMessages[code],
      errorCode: code,
    }));
  },
};
