import { randomUUID } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { MeetingEndedSchema } from "@svc/proto/svc/meeting/v1/events_pb";
import type { StoredMeeting } from "./db/meetings.ts";
import type { OutboxEvent } from "./db/outbox.ts";

/** The logical topic of meeting lifecycle events (the bus adds the deployment's prefix). */
export const MEETING_EVENTS_TOPIC = "meeting.events";

/** `meeting.ended` as the protobuf MeetingEnded, keyed by meeting id so one meeting's events stay in order. */
export function meetingEndedEvent(meeting: StoredMeeting): OutboxEvent {
  const eventId = randomUUID();
  const endedAt = meeting.endedAt ?? new Date();
  const message = create(MeetingEndedSchema, {
    eventId,
    occurredAt: timestampFromDate(endedAt),
    orgId: meeting.orgId,
    meeting: {
      id: meeting.id,
      title: meeting.title,
      start: meeting.start ? timestampFromDate(meeting.start) : undefined,
      endedAt: timestampFromDate(endedAt),
      attendees: meeting.attendees,
      createdByUserId: meeting.createdByUserId,
    },
  });
  return {
    topic: MEETING_EVENTS_TOPIC,
    key: meeting.id,
    id: eventId,
    type: MeetingEndedSchema.typeName,
    value: toBinary(MeetingEndedSchema, message),
  };
}
