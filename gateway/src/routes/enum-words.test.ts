import { MeetingStatus, ParticipantRole, RecordingMode, ScreenSharePolicy } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { describe, expect, it } from "vitest";
import { Meeting, MeetingStatusName } from "../contract/meeting.ts";
import { RecordingStatusName } from "../contract/recording.ts";
import { TranscriptStatusName } from "../contract/transcript.ts";
import { DeliveryStatusName } from "../contract/webhook.ts";
import {
  deliveryStatusWords,
  meetingStatusWords,
  participantRoleWords,
  recordingModeWords,
  recordingStatusWords,
  roleName,
  screenSharePolicyWords,
  transcriptionModeWords,
  transcriptStatusWords,
} from "./enum-words.ts";

// The words are derived from the .proto's enums; the REST contract states them as zod enums for the
// OpenAPI document. These must be the same words: a value added to one and not the other fails here.
describe("the REST words of the protobuf enums", () => {
  it("are the REST contract's enums, word for word", () => {
    expect(meetingStatusWords.words).toEqual(MeetingStatusName.options);
    expect(deliveryStatusWords.words).toEqual(DeliveryStatusName.options);
    expect(recordingStatusWords.words).toEqual(RecordingStatusName.options);
    expect(recordingModeWords.words).toEqual(Meeting.shape.recording.options);
    expect(screenSharePolicyWords.words).toEqual(Meeting.shape.screenShare.options);
    expect(transcriptionModeWords.words).toEqual(Meeting.shape.transcription.options);
    expect(transcriptStatusWords.words).toEqual(TranscriptStatusName.options);
    expect(participantRoleWords.words).toEqual(["host", "attendee", "guest"]);
  });

  it("translate both ways, the zero value having no word", () => {
    expect(meetingStatusWords.wordOf(MeetingStatus.LIVE)).toBe("live");
    expect(meetingStatusWords.valueOf("cancelled")).toBe(MeetingStatus.CANCELLED);
    expect(meetingStatusWords.wordOf(MeetingStatus.UNSPECIFIED)).toBeUndefined();
    expect(recordingModeWords.valueOf("manual")).toBe(RecordingMode.MANUAL);
    expect(screenSharePolicyWords.wordOf(ScreenSharePolicy.HOSTS)).toBe("hosts");
    expect(() => meetingStatusWords.valueOf("paused" as "live")).toThrow(/names no value "paused"/);
  });

  it("name an unspecified participant role a guest (the plain join URL's)", () => {
    expect(roleName(ParticipantRole.UNSPECIFIED)).toBe("guest");
    expect(roleName(ParticipantRole.HOST)).toBe("host");
  });
});
