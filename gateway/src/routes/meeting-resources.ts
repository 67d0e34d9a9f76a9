// The JSON of a meeting and of its visits, and the settings and update paths of a request's body:
// what the meeting routes (meeting.ts, meeting-attendance.ts) share.
import type { z } from "zod";
import { meetingLimits } from "@svc/platform/contract";
import { RecordingMode, ScreenSharePolicy, TranscriptionMode, type Meeting, type ParticipantRecord } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { Meeting as MeetingResource, MeetingJoinPayload } from "../contract/meeting.ts";
import { enumName, isoOrNull, isoTime } from "./proto-to-json.ts";
import { meetingStatusWords, recordingModeWords, roleName, screenSharePolicyWords, transcriptionModeWords } from "./enum-words.ts";

export const attendeeList = (attendees: string | string[] | null | undefined) =>
  attendees === null || attendees === undefined ? [] : typeof attendees === "string" ? [attendees] : attendees;

export const settingsOf = (body: {
  lobby?: boolean | undefined;
  screenShare?: "everyone" | "hosts" | undefined;
  noShowAfterMinutes?: number | undefined;
  recording?: "off" | "manual" | "auto" | undefined;
  transcription?: "off" | "on" | undefined;
}) => ({
  lobby: body.lobby,
  screenShare: body.screenShare ? screenSharePolicyWords.valueOf(body.screenShare) : ScreenSharePolicy.UNSPECIFIED,
  noShowAfterMinutes: body.noShowAfterMinutes,
  recording: body.recording ? recordingModeWords.valueOf(body.recording) : RecordingMode.UNSPECIFIED,
  transcription: body.transcription ? transcriptionModeWords.valueOf(body.transcription) : TranscriptionMode.UNSPECIFIED,
});

/** The update-mask path of each PATCH body field. */
export const updatePaths: Record<string, string> = {
  duration: "duration_minutes",
  lobby: "settings.lobby",
  screenShare: "settings.screen_share",
  noShowAfterMinutes: "settings.no_show_after_minutes",
  recording: "settings.recording",
  transcription: "settings.transcription",
};

/** One visit of a meeting room, as the participant list and the attendance show it. */
export const visitResource = (visit: ParticipantRecord) => ({
  participantId: visit.participantId,
  name: visit.name,
  email: visit.email || null,
  role: roleName(visit.role),
  joinedAt: isoTime(visit.joinedAt),
  leftAt: isoOrNull(visit.leftAt),
  durationSeconds: Number(visit.durationSeconds),
});

/** The creation payload of spec 2.2. The join URL is the capability, so the password is empty. */
export const joinPayload = (meeting: Meeting): z.input<typeof MeetingJoinPayload> => ({
  type: "svc_video",
  id: meeting.id,
  password: "",
  url: meeting.joinUrl,
});

/** A stored meeting (extension endpoints): the creation payload plus its state. */
export const meetingResource = (meeting: Meeting): z.input<typeof MeetingResource> => ({
  ...joinPayload(meeting),
  title: meeting.title,
  start: isoOrNull(meeting.start),
  end: isoOrNull(meeting.end),
  status: enumName(meetingStatusWords, meeting.status),
  attendees: meeting.attendees,
  hosts: meeting.hosts,
  lobby: meeting.settings?.lobby ?? false,
  // A meeting the service answers always has its settings; the defaults are the contract's.
  screenShare: screenSharePolicyWords.wordOf(meeting.settings?.screenShare ?? ScreenSharePolicy.EVERYONE) ?? "everyone",
  noShowAfterMinutes: meeting.settings?.noShowAfterMinutes ?? meetingLimits.noShowAfterMinutesDefault,
  recording: recordingModeWords.wordOf(meeting.settings?.recording ?? RecordingMode.OFF) ?? "off",
  transcription: transcriptionModeWords.wordOf(meeting.settings?.transcription ?? TranscriptionMode.OFF) ?? "off",
  createdAt: isoTime(meeting.createdAt),
  endedAt: isoOrNull(meeting.endedAt),
  cancelledAt: isoOrNull(meeting.cancelledAt),
});
