import { MeetingStatus, ParticipantRole, RecordingMode, ScreenSharePolicy } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { RecordingStatus } from "@svc/proto/svc/meeting/v1/recording_pb";
import { describe, expect, it } from "vitest";
import {
  meetingStatusWords,
  participantRoleWords,
  recordingModeWords,
  recordingStatusWords,
  screenSharePolicyWords,
  transcriptionModeWords,
  transcriptStatusWords,
} from "./enum-words.ts";

// The stored words (the columns' CHECK constraints in migrations/, the record types in db/) must be
// the words derived from the .proto: a value added to the enum and not to the column fails here.
describe("the stored words of the protobuf enums", () => {
  it("are the words the database stores", () => {
    expect(meetingStatusWords.words).toEqual(["scheduled", "live", "ended", "cancelled"]);
    expect(participantRoleWords.words).toEqual(["host", "attendee", "guest"]);
    expect(recordingModeWords.words).toEqual(["off", "manual", "auto"]);
    expect(screenSharePolicyWords.words).toEqual(["everyone", "hosts"]);
    expect(recordingStatusWords.words).toEqual(["recording", "processing", "ready", "failed"]);
    expect(transcriptionModeWords.words).toEqual(["off", "on"]);
    expect(transcriptStatusWords.words).toEqual(["processing", "ready", "failed"]);
  });

  it("translate both ways, the zero value having no word", () => {
    expect(meetingStatusWords.valueOf("ended")).toBe(MeetingStatus.ENDED);
    expect(participantRoleWords.wordOf(ParticipantRole.UNSPECIFIED)).toBeUndefined();
    expect(participantRoleWords.valueOf("attendee")).toBe(ParticipantRole.ATTENDEE);
    expect(recordingModeWords.wordOf(RecordingMode.AUTO)).toBe("auto");
    expect(screenSharePolicyWords.valueOf("hosts")).toBe(ScreenSharePolicy.HOSTS);
    expect(recordingStatusWords.valueOf("ready")).toBe(RecordingStatus.READY);
  });
});
