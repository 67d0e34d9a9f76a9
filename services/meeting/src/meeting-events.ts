import { randomUUID } from "node:crypto";
import { create, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  MeetingEndedSchema,
  MeetingEndReason,
  MeetingCancelledSchema,
  MeetingStartedSchema,
  MeetingUpdatedSchema,
  ParticipantJoinedSchema,
  ParticipantLeftSchema,
  type MeetingSnapshotSchema,
  type ParticipantVisitSchema,
} from "@svc/proto/svc/meeting/v1/events_pb";
import type { MeetingEndCause, StoredMeeting } from "./db/meetings.ts";
import type { RoomVisit } from "./db/room-participants.ts";
import type { OutboxEvent } from "./db/outbox.ts";

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
});

const endReasons: Record<MeetingEndCause, MeetingEndReason> = {
  api: MeetingEndReason.ENDED_BY_API,
  empty: MeetingEndReason.EMPTY,
  end_passed: MeetingEndReason.END_PASSED,
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
