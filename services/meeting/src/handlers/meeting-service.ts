import { create, fromBinary, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound, RequestCheck, type Authenticate, type Logger, IDEMPOTENT_REPLAYED_HEADER, idempotencyKeyOf } from "@svc/platform";
import { idempotentRequest } from "@svc/platform/db";
import {
  CreateMeetingRequestSchema,
  type MeetingPageService,
  MeetingSchema,
  type MeetingService,
  MeetingStatus,
  ParticipantRole,
  type JoinMeetingResponseSchema,
  type CreateMeetingRequest,
  type Meeting,
  type MeetingSettingsInput,
} from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { StoredMeeting, MeetingStore } from "../meeting-store.ts";
import { meetingStatusWords, participantRoleWords, recordingModeWords, screenSharePolicyWords, transcriptionModeWords } from "./enum-words.ts";
import { meetingLimits } from "@svc/platform/contract";
import { isMeetingId, newMeetingId } from "../meeting-id.ts";
import { parseOffsetDateTime, validateMeetingRequest, validateMeetingUpdate, type MeetingRequestInput, type SettingsInput } from "../meeting-request.ts";
import type { RoomVisit, VisitStore } from "../visit-store.ts";
import { noShowsAreDue, peopleOf } from "../attendance.ts";
import type { JoinGrant, JoinGrants, LobbyWait } from "../room/join-grants.ts";
import type { JoinLinks } from "../room/join-links.ts";
import type { MeetingLifecycle } from "../room/meeting-lifecycle.ts";

/** OAuth scopes of each operation; API keys need none. */
export const scopes = {
  create: "meeting.create",
  read: "meeting.read",
  update: "meeting.update",
  delete: "meeting.delete",
  links: "meeting.links",
} as const;

const DEFAULT_PAGE_SIZE = 20;
const { usageDaysDefault: USAGE_DAYS_DEFAULT, usageDaysMax: USAGE_DAYS_MAX } = meetingLimits;
const MAX_PAGE_SIZE = meetingLimits.pageSizeMax;

export interface MeetingServiceDependencies {
  authenticate: Authenticate;
  meetings: MeetingStore;
  lifecycle: MeetingLifecycle;
  /** The externally visible origin of the join page, without a trailing slash. */
  publicUrl: string;
  logger: Logger;
  /** Told after a meeting whose media room was opened ended or was cancelled through the API, to close the room on the media server. */
  roomClosed: (meetingId: string) => void;
  links: JoinLinks;
  /** Who was in each meeting's room, and the organization's use. */
  visits: VisitStore;
  /** Told after who the meeting invites, or one of its links, changed: the people in its room get their new rights at once (room-rights.ts). */
  rightsChanged: (meetingId: string) => void;
}

export const joinUrl = (publicUrl: string, id: string) => `${publicUrl}/meeting/${id}`;

/**
 * svc.meeting.v1.MeetingService. Every call authenticates the caller through identity and checks
 * its OAuth scope first; every query is limited to the caller's organization.
 */
export function meetingService(deps: MeetingServiceDependencies): ServiceImpl<typeof MeetingService> {
  const { authenticate, meetings, lifecycle, publicUrl, logger } = deps;
  const toProto = (meeting: StoredMeeting) => toProtoMeeting(meeting, publicUrl);
  // A meeting whose room was never opened (no join grant, nobody entered) has no room to close:
  // most scheduled meetings that are cancelled or ended through the API.
  const closeRoomOf = (meeting: StoredMeeting) => {
    if (meeting.roomOpenedAt) deps.roomClosed(meeting.id);
  };

  return {
    async createMeeting(request, context) {
      const caller = await authenticate(context, scopes.create);
      const key = idempotencyKeyOf(context);
      // The value rules first: a bad request is refused (400) before anything is read.
      validateMeetingRequest(requestInput(request));
      const idempotent = idempotentRequest(caller, key, "CreateMeeting", toBinary(CreateMeetingRequestSchema, request));
      let result: { value: Meeting; replayed: boolean };
      try {
        // Again with the organization's defaults (its transcription setting) for what the request leaves out.
        const valid = validateMeetingRequest(requestInput(request), await meetings.settingsDefaultsOf(caller.orgId));
        result = await meetings.create(
          {
            id: newMeetingId(),
            orgId: caller.orgId,
            createdByUserId: caller.userId,
            createdByClientId: caller.kind === "oauth" && caller.clientId ? caller.clientId : null,
            ...valid,
          },
          { request: idempotent, codec: meetingCodec, answer: toProto },
        );
      } catch (error) {
        if (error instanceof ConnectError) throw error; // an idempotency refusal
        // The specification's 500 message; the cause (often SQL) stays in our logs only.
        logger.error({ err: error, orgId: caller.orgId }, "failed to store a new meeting");
        throw new ConnectError("Failed to create meeting", Code.Internal);
      }
      if (result.replayed) context.responseHeader.set(IDEMPOTENT_REPLAYED_HEADER, "true");
      return { meeting: result.value };
    },

    async getMeeting(request, context) {
      const caller = await authenticate(context, scopes.read);
      const meeting = isMeetingId(request.id) ? await meetings.getOfOrg(caller.orgId, request.id) : undefined;
      if (!meeting) throw notFound("Meeting");
      return { meeting: toProto(meeting) };
    },

    async endMeeting(request, context) {
      const caller = await authenticate(context, scopes.update);
      const result = isMeetingId(request.id) ? await lifecycle.end(caller.orgId, request.id, "api") : undefined;
      if (!result) throw notFound("Meeting");
      if (result.endedNow) closeRoomOf(result.meeting);
      return { meeting: toProto(result.meeting), endedNow: result.endedNow };
    },

    async listMeetings(request, context) {
      const caller = await authenticate(context, scopes.read);
      if (request.pageSize < 0) throw invalidArgument(["page_size must not be negative"]);
      const limit = request.pageSize === 0 ? DEFAULT_PAGE_SIZE : Math.min(request.pageSize, MAX_PAGE_SIZE);
      const afterSeq = request.pageToken ? decodePageToken(request.pageToken) : null;
      const page = await meetings.list(caller.orgId, { limit, afterSeq, filter: listFilter(request) });
      const activities = await meetings.activitiesOf(page.meetings);
      return {
        meetings: page.meetings.map(toProto),
        nextPageToken: page.nextAfterSeq ? encodePageToken(page.nextAfterSeq) : "",
        activities: page.meetings.map((meeting) => ({ meetingId: meeting.id, ...activities.get(meeting.id) })),
      };
    },

    async updateMeeting(request, context) {
      const caller = await authenticate(context, scopes.update);
      const fields = request.updateMask?.paths ?? [];
      const result = isMeetingId(request.id)
        ? await lifecycle.update(caller.orgId, request.id, (current) => validateMeetingUpdate(fields, requestInput(request), current))
        : undefined;
      if (!result) throw notFound("Meeting");
      if (result.changed.some((field) => field === "hosts" || field === "attendees") && result.meeting.roomOpenedAt) deps.rightsChanged(result.meeting.id);
      return { meeting: toProto(result.meeting), changedFields: result.changed };
    },

    async cancelMeeting(request, context) {
      const caller = await authenticate(context, scopes.delete);
      const result = isMeetingId(request.id) ? await lifecycle.cancel(caller.orgId, request.id) : undefined;
      if (!result) throw notFound("Meeting");
      if (result.cancelledNow) closeRoomOf(result.meeting);
      return { meeting: toProto(result.meeting), cancelledNow: result.cancelledNow };
    },

    async createJoinLink(request, context) {
      const caller = await authenticate(context, scopes.links);
      const meeting = isMeetingId(request.meetingId) ? await meetings.getOfOrg(caller.orgId, request.meetingId) : undefined;
      if (!meeting) throw notFound("Meeting");
      if (meeting.status === "ended" || meeting.status === "cancelled")
        throw new ConnectError(`Meeting has ${meeting.status === "ended" ? "ended" : "been cancelled"}: no new links`, Code.FailedPrecondition);
      const { link, secret } = await deps.links.create(meeting, {
        email: request.email,
        name: request.name,
        role: participantRoleWords.wordOf(request.role),
        expiresAt: request.expiresAt ? timestampDate(request.expiresAt) : undefined,
      });
      return {
        link: {
          linkId: link.id,
          meetingId: meeting.id,
          // In the fragment: browsers never send it to a server, so it stays out of access logs and referrers.
          url: `${joinUrl(publicUrl, meeting.id)}#link=${secret}`,
          role: participantRoleWords.valueOf(link.role),
          email: link.email ?? "",
          name: link.name ?? "",
          expiresAt: timestampFromDate(link.expiresAt),
        },
      };
    },

    async revokeJoinLink(request, context) {
      const caller = await authenticate(context, scopes.links);
      const meeting = isMeetingId(request.meetingId) ? await meetings.getOfOrg(caller.orgId, request.meetingId) : undefined;
      if (!meeting) throw notFound("Meeting");
      const outcome = /^[0-9a-f-]{36}$/i.test(request.linkId) ? await deps.links.revoke(meeting.id, request.linkId) : undefined;
      if (!outcome) throw notFound("Link");
      if (outcome === "revoked" && meeting.roomOpenedAt) deps.rightsChanged(meeting.id);
      return { revokedNow: outcome === "revoked" };
    },

    async listJoinLinks(request, context) {
      const caller = await authenticate(context, scopes.links);
      const meeting = isMeetingId(request.meetingId) ? await meetings.getOfOrg(caller.orgId, request.meetingId) : undefined;
      if (!meeting) throw notFound("Meeting");
      return {
        links: (await deps.links.list(meeting)).map(({ link, standing }) => ({
          linkId: link.id,
          role: "role" in standing ? participantRoleWords.valueOf(standing.role) : ParticipantRole.UNSPECIFIED,
          email: link.email ?? "",
          name: link.name ?? "",
          expiresAt: timestampFromDate(link.expiresAt),
          revokedAt: link.revokedAt ? timestampFromDate(link.revokedAt) : undefined,
          createdAt: timestampFromDate(link.createdAt),
          state: "role" in standing ? "active" : standing.problem.code,
        })),
      };
    },

    async listParticipants(request, context) {
      const caller = await authenticate(context, scopes.read);
      const meeting = isMeetingId(request.meetingId) ? await meetings.getOfOrg(caller.orgId, request.meetingId) : undefined;
      if (!meeting) throw notFound("Meeting");
      if (meeting.status === "cancelled") throw gone("Meeting was cancelled");
      if (request.pageSize < 0) throw invalidArgument(["page_size must not be negative"]);
      const limit = request.pageSize === 0 ? 50 : Math.min(request.pageSize, MAX_PAGE_SIZE);
      const after = request.pageToken ? decodeVisitToken(request.pageToken) : null;
      const page = await deps.visits.page(meeting.id, { limit, after });
      const now = Date.now();
      const last = page.visits.at(-1);
      return {
        participants: page.visits.map((visit) => participantRecord(visit, now)),
        nextPageToken: page.more && last ? encodeVisitToken(last) : "",
      };
    },

    async getAttendance(request, context) {
      const caller = await authenticate(context, scopes.read);
      const meeting = isMeetingId(request.meetingId) ? await meetings.getOfOrg(caller.orgId, request.meetingId) : undefined;
      if (!meeting) throw notFound("Meeting");
      const now = new Date();
      const noShowsDue = noShowsAreDue(meeting, now);
      const people = peopleOf(meeting, await deps.visits.of(meeting.id), now);
      return {
        status: meetingStatusWords.valueOf(meeting.status),
        people: people.map((person) => ({
          name: person.name,
          email: person.email ?? "",
          role: participantRoleWords.valueOf(person.role),
          invited: person.invited,
          visits: person.visits.map((visit) => participantRecord(visit, now.getTime())),
          totalSeconds: BigInt(person.totalSeconds),
          present: person.present,
          noShow: person.invited && person.visits.length === 0 && noShowsDue,
        })),
      };
    },

    async getUsage(request, context) {
      const caller = await authenticate(context, scopes.read);
      if (request.days !== 0 && (request.days < 1 || request.days > USAGE_DAYS_MAX)) throw invalidArgument([`days must be from 1 to ${USAGE_DAYS_MAX}`]);
      const usage = await deps.visits.usage(caller.orgId, request.days || USAGE_DAYS_DEFAULT);
      return {
        days: usage.days,
        recordingMinutes: usage.recordingMinutes,
        storageBytes: BigInt(usage.storageBytes),
        recordingsStored: usage.recordingsStored,
      };
    },
  };
}

const gone = (message: string) => new ConnectError(message, Code.FailedPrecondition, { "x-gone": "true" });

function participantRecord(visit: RoomVisit, now: number) {
  const until = visit.leftAt?.getTime() ?? now;
  return {
    participantId: visit.participantId,
    name: visit.displayName,
    email: visit.email ?? "",
    role: participantRoleWords.valueOf(visit.role ?? "guest"),
    joinedAt: timestampFromDate(visit.joinedAt),
    leftAt: visit.leftAt ? timestampFromDate(visit.leftAt) : undefined,
    durationSeconds: BigInt(Math.max(0, Math.round((until - visit.joinedAt.getTime()) / 1_000))),
  };
}

const encodeVisitToken = (visit: RoomVisit) => Buffer.from(`v:${visit.joinedAt.toISOString()}|${visit.sessionId}`).toString("base64url");

function decodeVisitToken(token: string): { joinedAt: Date; sessionId: string } {
  const match = /^v:(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|(.{1,128})$/.exec(Buffer.from(token, "base64url").toString());
  if (!match) throw invalidArgument(["page_token is invalid"]);
  return { joinedAt: new Date(match[1]!), sessionId: match[2]! };
}

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

/** How a created meeting is kept for idempotent replays: the protobuf message itself. */
const meetingCodec = {
  encode: (meeting: Meeting) => toBinary(MeetingSchema, meeting),
  decode: (stored: Uint8Array) => fromBinary(MeetingSchema, stored),
};

/** ListMeetings' filters, with the date rule of creation; every bad one named. */
function listFilter(request: { status: MeetingStatus; startFrom?: string | undefined; startBefore?: string | undefined; search: string }) {
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

    async getJoinInfo(request) {
      const meeting = isMeetingId(request.id) ? await deps.meetings.get(request.id) : undefined;
      if (!meeting) throw notFound("Meeting");
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

/** The meeting a CreateMeeting or UpdateMeeting request describes, for the value rules (meeting-request.ts). */
function requestInput(
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

function toProtoMeeting(meeting: StoredMeeting, publicUrl: string): Meeting {
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

// Page tokens are opaque to callers: base64url of the last seen position.
const encodePageToken = (seq: string) => Buffer.from(`seq:${seq}`).toString("base64url");

function decodePageToken(token: string): string {
  const match = /^seq:(\d{1,19})$/.exec(Buffer.from(token, "base64url").toString());
  if (!match) throw invalidArgument(["page_token is invalid"]);
  return match[1]!;
}
