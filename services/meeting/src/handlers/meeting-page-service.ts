import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { notFound } from "@svc/platform";
import { ParticipantRole, type JoinMeetingResponseSchema, type MeetingPageService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { MeetingStore } from "../meeting-store.ts";
import { isMeetingId } from "../meeting-id.ts";
import type { JoinGrant, JoinGrants, LobbyWait } from "../room/join-grants.ts";
import type { JoinLinks } from "../room/join-links.ts";
import { markIfCancelled } from "./cancelled-reads.ts";
import { meetingStatusWords, participantRoleWords } from "./enum-words.ts";

/** A join grant as the page service answers it (the lobby's admission answers the same). */
export function joinResponse(grant: JoinGrant | LobbyWait): MessageInitShape<typeof JoinMeetingResponseSchema> {
  const common = {
    meetingId: grant.meeting.id,
    title: grant.meeting.title,
    status: meetingStatusWords.valueOf(grant.meeting.status),
    role: participantRoleWords.valueOf(grant.role),
  };
  if ("lobbyTicket" in grant) return { ...common, lobbyTicket: grant.lobbyTicket };
  return {
    ...common,
    participantId: grant.participantId,
    token: grant.token,
    serverUrl: grant.serverUrl,
    expiresAt: timestampFromDate(grant.expiresAt),
    roomSession: grant.roomSession,
  };
}

/**
 * svc.meeting.v1.MeetingPageService: the public join page and its join grants. No credential:
 * holding the unguessable id is the permission. It tells only what a participant needs (no
 * attendee list).
 */
export function meetingPageService(deps: {
  meetings: MeetingStore;
  grants: JoinGrants;
  links: JoinLinks;
  /** Whether the meeting is being recorded now (the join page says so before anyone joins). */
  isRecording: (meetingId: string) => Promise<boolean>;
  /** Whether someone was removed from the meeting from this browser session (its visitor key) or with this link. */
  isRemoved: (meetingId: string, visitorKey: string, linkId: string | null) => Promise<boolean>;
}): ServiceImpl<typeof MeetingPageService> {
  return {
    async joinMeeting(request) {
      if (!isMeetingId(request.meetingId)) throw notFound("Meeting");
      const grant = await deps.grants.grantJoin({
        meetingId: request.meetingId,
        displayName: request.displayName,
        clientAddress: request.clientAddress,
        link: request.link,
        visitorKey: request.visitorKey,
      });
      return joinResponse(grant);
    },

    async getJoinInfo(request, context) {
      const meeting = isMeetingId(request.id) ? await deps.meetings.get(request.id) : undefined;
      if (!meeting) throw notFound("Meeting");
      markIfCancelled(meeting, context);
      const described = request.link ? await deps.links.describe(meeting, request.link) : undefined;
      return {
        recording: meeting.status === "live" && meeting.settings.recording !== "off" ? await deps.isRecording(meeting.id) : false,
        recordingMode: meeting.settings.recording,
        transcribed: meeting.settings.recording !== "off" && meeting.settings.transcription === "on",
        lobby: meeting.settings.lobby,
        linkName: described?.link ? (described.link.name ?? "") : "",
        linkRole: described?.link ? participantRoleWords.valueOf(described.link.role) : ParticipantRole.UNSPECIFIED,
        linkProblem: described?.problem?.code ?? "",
        linkProblemMessage: described?.problem?.message ?? "",
        removed: request.visitorKey || described?.link ? await deps.isRemoved(meeting.id, request.visitorKey, described?.link?.id ?? null) : false,
        id: meeting.id,
        title: meeting.title,
        start: meeting.start ? timestampFromDate(meeting.start) : undefined,
        status: meetingStatusWords.valueOf(meeting.status),
        attendeeCount: meeting.attendees.length,
        endedAt: meeting.endedAt ? timestampFromDate(meeting.endedAt) : undefined,
        orgId: meeting.orgId,
      };
    },
  };
}
