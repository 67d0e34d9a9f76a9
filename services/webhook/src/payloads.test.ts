import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { create, toBinary, type MessageShape } from "@bufbuild/protobuf";
import {
  MeetingEndedSchema,
  MeetingCancelledSchema,
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
} from "@svc/proto/svc/meeting/v1/events_pb";
import { describe, expect, it } from "vitest";
import { SUBSCRIBABLE_EVENT_TYPES } from "./event-types.ts";
import { decodeMeetingEvent, meetingEndedBody, testEventBody, webhookDisabledBody } from "./payloads.ts";

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
      data: {
        meetingId: "m1",
        orgId: "org-1",
        title: "Sync",
        start: "2030-01-02T02:00:00.000Z",
        endedAt: "2030-01-02T03:04:05.678Z",
        attendees: ["a@example.com"],
        reason: null,
        participants: [],
        attendance: { invitees: [], guests: 0 },
      },
    });
  });

  it("adds the end reason and every visit to meeting.ended", () => {
    const event = create(MeetingEndedSchema, {
      eventId: "e1",
      orgId: "org-1",
      reason: MeetingEndReason.EMPTY,
      meeting: { id: "m1", title: "Sync", endedAt: timestampFromDate(new Date("2030-01-02T04:00:00Z")) },
      participants: [
        {
          participantId: "p_a",
          displayName: "Ada",
          joinedAt: timestampFromDate(new Date("2030-01-02T03:00:00Z")),
          leftAt: timestampFromDate(new Date("2030-01-02T03:30:00Z")),
        },
      ],
    });
    const { data } = meetingEndedBody(event);
    expect(data.reason).toBe("empty");
    expect(data.participants).toEqual([
      { participantId: "p_a", displayName: "Ada", joinedAt: "2030-01-02T03:00:00.000Z", leftAt: "2030-01-02T03:30:00.000Z", role: "guest", email: null },
    ]);
  });

  it("adds the attendance summary to meeting.ended, and builds meeting.no_show", () => {
    const at = timestampFromDate(new Date("2030-01-02T03:00:00Z"));
    const ended = create(MeetingEndedSchema, {
      eventId: "e1",
      orgId: "o",
      reason: MeetingEndReason.ENDED_BY_HOST,
      meeting: { id: "m", title: "t", endedAt: at },
      attendance: {
        invitees: [
          { email: "h@example.com", role: "host", joined: true, firstJoinedAt: at, totalSeconds: 125n },
          { email: "a@example.com", role: "attendee", joined: false, totalSeconds: 0n },
        ],
        guestCount: 2,
      },
    });
    const { data } = meetingEndedBody(ended);
    expect(data.reason).toBe("ended_by_host");
    expect(data.attendance).toEqual({
      invitees: [
        { email: "h@example.com", role: "host", joined: true, firstJoinedAt: "2030-01-02T03:00:00.000Z", totalSeconds: 125 },
        { email: "a@example.com", role: "attendee", joined: false, firstJoinedAt: null, totalSeconds: 0 },
      ],
      guests: 2,
    });
    const noShow = create(MeetingNoShowSchema, {
      eventId: "e9",
      orgId: "o",
      occurredAt: at,
      meetingId: "m",
      email: "a@example.com",
      role: "attendee",
      start: at,
      title: "t",
    });
    expect(decodeMeetingEvent(MeetingNoShowSchema.typeName, toBinary(MeetingNoShowSchema, noShow))!.body).toEqual({
      type: "meeting.no_show",
      timestamp: "2030-01-02T03:00:00.000Z",
      data: { meetingId: "m", orgId: "o", title: "t", email: "a@example.com", role: "attendee", start: "2030-01-02T03:00:00.000Z" },
    });
  });

  it("decodes each meeting event type into the webhook event of the same name, and ignores unknown types", () => {
    const at = timestampFromDate(new Date("2030-01-02T03:00:00Z"));
    const participant = { participantId: "p_b", displayName: "Bob <b>", joinedAt: at };
    const messages = [
      [MeetingStartedSchema, create(MeetingStartedSchema, { eventId: "e1", orgId: "o", occurredAt: at, meeting: { id: "m", title: "t" } })],
      [MeetingEndedSchema, create(MeetingEndedSchema, { eventId: "e2", orgId: "o", occurredAt: at, meeting: { id: "m", title: "t", endedAt: at } })],
      [
        MeetingUpdatedSchema,
        create(MeetingUpdatedSchema, {
          eventId: "e5",
          orgId: "o",
          occurredAt: at,
          meeting: { id: "m", title: "New", start: at },
          previous: { id: "m", title: "Old" },
          changedFields: ["title", "start"],
        }),
      ],
      [MeetingCancelledSchema, create(MeetingCancelledSchema, { eventId: "e6", orgId: "o", occurredAt: at, meeting: { id: "m", title: "t" } })],
      [ParticipantJoinedSchema, create(ParticipantJoinedSchema, { eventId: "e3", orgId: "o", occurredAt: at, meetingId: "m", participant })],
      [
        ParticipantLeftSchema,
        create(ParticipantLeftSchema, { eventId: "e4", orgId: "o", occurredAt: at, meetingId: "m", participant: { ...participant, leftAt: at } }),
      ],
    ] as const;
    const types = messages.map(([schema, message]) => {
      const decoded = decodeMeetingEvent(schema.typeName, toBinary(schema, message))!;
      expect(decoded.orgId).toBe("o");
      return decoded.body.type;
    });
    expect(types).toEqual(["meeting.started", "meeting.ended", "meeting.updated", "meeting.cancelled", "participant.joined", "participant.left"]);
    // Every subscribable type is a meeting event except the one the webhook service raises itself
    // (meeting.no_show is decoded in the test above, the recording events in the test below).
    expect(
      new Set([
        ...types,
        "meeting.no_show",
        "recording.started",
        "recording.ready",
        "recording.failed",
        "transcript.ready",
        "transcript.failed",
        "webhook.disabled",
      ]),
    ).toEqual(new Set(SUBSCRIBABLE_EVENT_TYPES));
    const joined = decodeMeetingEvent(ParticipantJoinedSchema.typeName, toBinary(ParticipantJoinedSchema, messages[4][1]))!;
    const updated = decodeMeetingEvent(MeetingUpdatedSchema.typeName, toBinary(MeetingUpdatedSchema, messages[2][1]))!;
    expect(updated.body.data).toEqual({
      meetingId: "m",
      orgId: "o",
      title: "New",
      start: "2030-01-02T03:00:00.000Z",
      end: null,
      attendees: [],
      changedFields: ["title", "start"],
      previous: { title: "Old", start: null, end: null, attendees: [] },
    });
    expect(joined.body.data).toEqual({
      meetingId: "m",
      orgId: "o",
      participant: { participantId: "p_b", displayName: "Bob <b>", joinedAt: "2030-01-02T03:00:00.000Z", leftAt: null, role: "guest", email: null },
    });
    expect(decodeMeetingEvent("svc.meeting.v1.SomethingElse", new Uint8Array())).toBeUndefined();
    expect(() =>
      decodeMeetingEvent(ParticipantJoinedSchema.typeName, toBinary(ParticipantJoinedSchema, create(ParticipantJoinedSchema, { eventId: "e" }))),
    ).toThrow(/participant/);
  });

  it("decodes the recording events into recording.started, recording.ready (duration, size) and recording.failed (error)", () => {
    const started = timestampFromDate(new Date("2030-01-02T03:00:00Z"));
    const ended = timestampFromDate(new Date("2030-01-02T03:00:21.5Z"));
    const recording = { recordingId: "r", meetingId: "m", layout: "grid", startedAt: started, startedBy: "host" };
    const common = { recordingId: "r", meetingId: "m", orgId: "o", layout: "grid", startedBy: "host", startedAt: "2030-01-02T03:00:00.000Z" };
    const decode = <S extends typeof RecordingStartedSchema | typeof RecordingReadySchema | typeof RecordingFailedSchema>(
      schema: S,
      message: MessageShape<S>,
    ) => decodeMeetingEvent(schema.typeName, toBinary(schema, message))!;
    expect(decode(RecordingStartedSchema, create(RecordingStartedSchema, { eventId: "e1", orgId: "o", occurredAt: started, recording })).body).toEqual({
      type: "recording.started",
      timestamp: "2030-01-02T03:00:00.000Z",
      data: common,
    });
    const ready = decode(
      RecordingReadySchema,
      create(RecordingReadySchema, {
        eventId: "e2",
        orgId: "o",
        occurredAt: ended,
        recording: { ...recording, endedAt: ended, durationSeconds: 21.5, sizeBytes: 123456n },
      }),
    );
    expect(ready.body).toEqual({
      type: "recording.ready",
      timestamp: "2030-01-02T03:00:21.500Z",
      data: { ...common, endedAt: "2030-01-02T03:00:21.500Z", durationSeconds: 21.5, sizeBytes: 123456 },
    });
    const failed = decode(
      RecordingFailedSchema,
      create(RecordingFailedSchema, { eventId: "e3", orgId: "o", occurredAt: ended, recording, errorCode: "recorder_failed", error: "The recorder failed" }),
    );
    expect(failed.body.data).toEqual({ ...common, endedAt: null, errorCode: "recorder_failed", error: "The recorder failed" });
    expect(() => decode(RecordingReadySchema, create(RecordingReadySchema, { eventId: "e4", orgId: "o" }))).toThrow(/recording snapshot/);
  });

  it("decodes the transcript events into transcript.ready (speakers, duration) and transcript.failed (error code and words)", () => {
    const created = timestampFromDate(new Date("2030-01-02T03:00:00Z"));
    const completed = timestampFromDate(new Date("2030-01-02T03:05:00Z"));
    const transcript = {
      transcriptId: "t",
      meetingId: "m",
      language: "en",
      createdAt: created,
      completedAt: completed,
      speakers: [
        { displayName: "Ada", email: "ada@example.com" },
        { displayName: "Bob <b>", email: "" },
      ],
    };
    const common = {
      transcriptId: "t",
      meetingId: "m",
      orgId: "o",
      language: "en",
      createdAt: "2030-01-02T03:00:00.000Z",
      completedAt: "2030-01-02T03:05:00.000Z",
      speakers: [
        { name: "Ada", email: "ada@example.com" },
        { name: "Bob <b>", email: null },
      ],
    };
    const ready = create(TranscriptReadySchema, { eventId: "e1", orgId: "o", occurredAt: completed, transcript: { ...transcript, durationSeconds: 42.5 } });
    expect(decodeMeetingEvent(TranscriptReadySchema.typeName, toBinary(TranscriptReadySchema, ready))!.body).toEqual({
      type: "transcript.ready",
      timestamp: "2030-01-02T03:05:00.000Z",
      data: { ...common, durationSeconds: 42.5 },
    });
    const failed = create(TranscriptFailedSchema, {
      eventId: "e2",
      orgId: "o",
      occurredAt: completed,
      transcript,
      errorCode: "audio_unreadable",
      error: "unreadable",
    });
    expect(decodeMeetingEvent(TranscriptFailedSchema.typeName, toBinary(TranscriptFailedSchema, failed))!.body.data).toEqual({
      ...common,
      errorCode: "audio_unreadable",
      error: "unreadable",
    });
    const bare = create(TranscriptReadySchema, { eventId: "e3", orgId: "o" });
    expect(() => decodeMeetingEvent(TranscriptReadySchema.typeName, toBinary(TranscriptReadySchema, bare))).toThrow(/transcript snapshot/);
  });

  it("gives null for a meeting without a start and refuses an event without a snapshot", () => {
    const event = create(MeetingEndedSchema, { eventId: "e2", orgId: "o", meeting: { id: "m", title: "t", endedAt: timestampFromDate(new Date(0)) } });
    expect(meetingEndedBody(event).data.start).toBeNull();
    expect(() => meetingEndedBody(create(MeetingEndedSchema, { eventId: "e3", orgId: "o" }))).toThrow(/snapshot/);
  });

  it("builds the webhook.disabled body with the endpoint, the trigger and when its failures began", () => {
    const body = webhookDisabledBody({
      id: "w1",
      orgId: "o1",
      url: "https://example.com:8443/hook/s3cr3t-path?token=s3cr3t-query",
      disabledAt: new Date("2030-01-06T00:00:00Z"),
      reason: "failing without a successful delivery since 2030-01-01T00:00:00.000Z",
      trigger: "continuous_failure",
      failingSince: new Date("2030-01-01T00:00:00Z"),
    });
    expect(body).toEqual({
      type: "webhook.disabled",
      timestamp: "2030-01-06T00:00:00.000Z",
      data: {
        webhookId: "w1",
        orgId: "o1",
        host: "example.com:8443",
        disabledAt: "2030-01-06T00:00:00.000Z",
        trigger: "continuous_failure",
        reason: "failing without a successful delivery since 2030-01-01T00:00:00.000Z",
        failingSince: "2030-01-01T00:00:00.000Z",
      },
    });
    expect(JSON.stringify(body)).not.toContain("s3cr3t");
  });

  it("builds the webhook.test body", () => {
    expect(testEventBody("w1", "o1", new Date("2030-01-01T00:00:00Z"))).toEqual({
      type: "webhook.test",
      timestamp: "2030-01-01T00:00:00.000Z",
      data: { webhookId: "w1", orgId: "o1", message: expect.any(String) },
    });
  });
});
