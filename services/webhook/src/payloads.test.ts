import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { MeetingEndedSchema } from "@svc/proto/svc/meeting/v1/events_pb";
import { describe, expect, it } from "vitest";
import { meetingEndedBody, testEventBody } from "./payloads.ts";

describe("event bodies", () => {
  it("maps MeetingEnded to {type, timestamp, data} with camelCase meeting fields", () => {
    const event = create(MeetingEndedSchema, {
      eventId: "e1",
      occurredAt: timestampFromDate(new Date("2030-01-02T03:04:05.678Z")),
      orgId: "org-1",
      meeting: {
        id: "m1",
        title: "Sync",
        start: timestampFromDate(new Date("2030-01-02T02:00:00Z")),
        endedAt: timestampFromDate(new Date("2030-01-02T03:04:05.678Z")),
        attendees: ["a@example.com"],
        createdByUserId: "user-1",
      },
    });
    expect(meetingEndedBody(event)).toEqual({
      type: "meeting.ended",
      timestamp: "2030-01-02T03:04:05.678Z",
      data: { meetingId: "m1", orgId: "org-1", title: "Sync", start: "2030-01-02T02:00:00.000Z", endedAt: "2030-01-02T03:04:05.678Z", attendees: ["a@example.com"] },
    });
  });

  it("gives null for a meeting without a start and refuses an event without a snapshot", () => {
    const event = create(MeetingEndedSchema, { eventId: "e2", orgId: "o", meeting: { id: "m", title: "t", endedAt: timestampFromDate(new Date(0)) } });
    expect(meetingEndedBody(event).data.start).toBeNull();
    expect(() => meetingEndedBody(create(MeetingEndedSchema, { eventId: "e3", orgId: "o" }))).toThrow(/snapshot/);
  });

  it("builds the webhook.test body", () => {
    expect(testEventBody("w1", "o1", new Date("2030-01-01T00:00:00Z"))).toEqual({
      type: "webhook.test",
      timestamp: "2030-01-01T00:00:00.000Z",
      data: { webhookId: "w1", orgId: "o1", message: expect.any(String) },
    });
  });
});
