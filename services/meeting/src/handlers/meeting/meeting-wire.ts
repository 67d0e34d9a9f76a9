import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { invalidArgument, RequestCheck } from "@svc/platform";
import { meetingLimits } from "@svc/platform/contract";
import { MeetingSchema, MeetingStatus, type CreateMeetingRequest, type Meeting, type MeetingSettingsInput } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { StoredMeeting } from "../../meeting-store.ts";
import { parseOffsetDateTime, type MeetingRequestInput, type SettingsInput } from "../../meeting-request.ts";
import { meetingStatusWords, recordingModeWords, screenSharePolicyWords, transcriptionModeWords } from "../enum-words.ts";
import { joinUrl } from "./meeting-context.ts";

// How meetings travel between the protobuf messages and the service's own records, both ways.

/** The meeting a CreateMeeting or UpdateMeeting request describes, for the value rules (meeting-request.ts). */
export function requestInput(
  request: Pick<CreateMeetingRequest, "title" | "start" | "end" | "durationMinutes" | "attendees" | "hosts" | "settings">,
): MeetingRequestInput {
  const { title, start, end, durationMinutes, attendees, hosts, settings } = request;
  return { title, start, end, durationMinutes, attendees, hosts, settings: settingsInput(settings) };
}

/** The settings a request gives (an unspecified screen-share policy or recording mode is not given). */
function settingsInput(input: MeetingSettingsInput | undefined): SettingsInput {
  return {
    lobby: input?.lobby,
    noShowAfterMinutes: input?.noShowAfterMinutes,
    screenShare: input?.screenShare === undefined ? undefined : screenSharePolicyWords.wordOf(input.screenShare),
    recording: input?.recording === undefined ? undefined : recordingModeWords.wordOf(input.recording),
    transcription: input?.transcription === undefined ? undefined : transcriptionModeWords.wordOf(input.transcription),
  };
}

export function toProtoMeeting(meeting: StoredMeeting, publicUrl: string): Meeting {
  return create(MeetingSchema, {
    id: meeting.id,
    orgId: meeting.orgId,
    title: meeting.title,
    start: meeting.start ? timestampFromDate(meeting.start) : undefined,
    status: meetingStatusWords.valueOf(meeting.status),
    attendees: meeting.attendees,
    hosts: meeting.hosts,
    settings: {
      lobby: meeting.settings.lobby,
      screenShare: screenSharePolicyWords.valueOf(meeting.settings.screenShare),
      noShowAfterMinutes: meeting.settings.noShowAfterMinutes,
      recording: recordingModeWords.valueOf(meeting.settings.recording),
      transcription: transcriptionModeWords.valueOf(meeting.settings.transcription),
    },
    createdAt: timestampFromDate(meeting.createdAt),
    endedAt: meeting.endedAt ? timestampFromDate(meeting.endedAt) : undefined,
    end: meeting.end ? timestampFromDate(meeting.end) : undefined,
    cancelledAt: meeting.cancelledAt ? timestampFromDate(meeting.cancelledAt) : undefined,
    joinUrl: joinUrl(publicUrl, meeting.id),
    createdByUserId: meeting.createdByUserId,
    createdByClientId: meeting.createdByClientId ?? "",
  });
}

/** How a created meeting is kept for idempotent replays: the protobuf message itself. */
export const meetingCodec = {
  encode: (meeting: Meeting) => toBinary(MeetingSchema, meeting),
  decode: (stored: Uint8Array) => fromBinary(MeetingSchema, stored),
};

/** ListMeetings' filters, with the date rule of creation; every bad one named. */
export function listFilter(request: { status: MeetingStatus; startFrom?: string | undefined; startBefore?: string | undefined; search: string }) {
  const check = new RequestCheck();
  const date = (name: string, value: string | undefined) => {
    if (value === undefined) return null;
    const parsed = parseOffsetDateTime(value);
    if (parsed.ok) return parsed.date;
    check.add(`${name} ${parsed.problem}`);
    return null;
  };
  const startFrom = date("start_from", request.startFrom);
  const startBefore = date("start_before", request.startBefore);
  const status = request.status === MeetingStatus.UNSPECIFIED ? null : (meetingStatusWords.wordOf(request.status) ?? null);
  if (request.status !== MeetingStatus.UNSPECIFIED && status === null) check.add("status is not a meeting status");
  // NUL cannot be in any stored text (Postgres refuses it), so it cannot narrow the search either.
  const search = request.search.replaceAll("\u0000", "").trim();
  if (search.length > meetingLimits.searchMaxLength) check.add(`search must be at most ${meetingLimits.searchMaxLength} characters`);
  check.done();
  return { status, startFrom, startBefore, search: search === "" ? null : search };
}

// Page tokens are opaque to callers: base64url of the last seen position.
export const encodePageToken = (seq: string) => Buffer.from(`seq:${seq}`).toString("base64url");

export function decodePageToken(token: string): string {
  const match = /^seq:(\d{1,19})$/.exec(Buffer.from(token, "base64url").toString());
  if (!match) throw invalidArgument(["page_token is invalid"]);
  return match[1]!;
}
