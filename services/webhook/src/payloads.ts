import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { MeetingEnded } from "@svc/proto/svc/meeting/v1/events_pb";
import { TEST_EVENT_TYPE } from "./event-types.ts";

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

export function meetingEndedBody(event: MeetingEnded): EventBody {
  const meeting = event.meeting;
  if (!meeting) throw new Error("MeetingEnded without a meeting snapshot");
  const endedAt = meeting.endedAt ? timestampDate(meeting.endedAt) : event.occurredAt ? timestampDate(event.occurredAt) : new Date();
  return {
    type: "meeting.ended",
    timestamp: (event.occurredAt ? timestampDate(event.occurredAt) : endedAt).toISOString(),
    data: {
      meetingId: meeting.id,
      orgId: event.orgId,
      title: meeting.title,
      start: meeting.start ? timestampDate(meeting.start).toISOString() : null,
      endedAt: endedAt.toISOString(),
      attendees: [...meeting.attendees],
    },
  };
}

export function testEventBody(webhookId: string, orgId: string, now = new Date()): EventBody {
  return {
    type: TEST_EVENT_TYPE,
    timestamp: now.toISOString(),
    data: { webhookId, orgId, message: "This is a test event sent on request; it carries no meeting data." },
  };
}
