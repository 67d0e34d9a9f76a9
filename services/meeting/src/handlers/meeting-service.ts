import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import {
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyOf,
  idempotentRequest,
  invalidArgument,
  notFound,
  RequestCheck,
  type Authenticate,
  type Logger,
} from "@svc/platform";
import {
  CreateMeetingRequestSchema,
  type MeetingPageService,
  MeetingSchema,
  type MeetingService,
  MeetingStatus,
  type Meeting,
} from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { MeetingStatus as StoredStatus, StoredMeeting } from "../db/meetings.ts";
import { meetingLimits } from "@svc/platform/contract";
import { isMeetingId, newMeetingId } from "../meeting-id.ts";
import type { MeetingStore } from "../meeting-store.ts";
import { parseOffsetDateTime, validateMeetingRequest, validateMeetingUpdate } from "../meeting-request.ts";
import type { GrantJoin } from "../room/join-grants.ts";
import type { MeetingLifecycle } from "../room/meeting-lifecycle.ts";

/** OAuth scopes of each operation; API keys need none. */
export const scopes = {
  create: "meeting.create",
  read: "meeting.read",
  update: "meeting.update",
  delete: "meeting.delete",
} as const;

const DEFAULT_PAGE_SIZE = 20;
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
      const valid = validateMeetingRequest({
        title: request.title,
        start: request.start,
        end: request.end,
        durationMinutes: request.durationMinutes,
        attendees: request.attendees,
      });
      const idempotent = idempotentRequest(caller, key, "CreateMeeting", toBinary(CreateMeetingRequestSchema, request));
      let result: { value: Meeting; replayed: boolean };
      try {
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
      return { meetings: page.meetings.map(toProto), nextPageToken: page.nextAfterSeq ? encodePageToken(page.nextAfterSeq) : "" };
    },

    async updateMeeting(request, context) {
      const caller = await authenticate(context, scopes.update);
      const fields = request.updateMask?.paths ?? [];
      const result = isMeetingId(request.id)
        ? await lifecycle.update(caller.orgId, request.id, (current) =>
            validateMeetingUpdate(
              fields,
              { title: request.title, start: request.start, end: request.end, durationMinutes: request.durationMinutes, attendees: request.attendees },
              current,
            ),
          )
        : undefined;
      if (!result) throw notFound("Meeting");
      return { meeting: toProto(result.meeting), changedFields: result.changed };
    },

    async cancelMeeting(request, context) {
      const caller = await authenticate(context, scopes.delete);
      const result = isMeetingId(request.id) ? await lifecycle.cancel(caller.orgId, request.id) : undefined;
      if (!result) throw notFound("Meeting");
      if (result.cancelledNow) closeRoomOf(result.meeting);
      return { meeting: toProto(result.meeting), cancelledNow: result.cancelledNow };
    },
  };
}

/** How a created meeting is kept for idempotent replays: the protobuf message itself. */
const meetingCodec = {
  encode: (meeting: Meeting) => toBinary(MeetingSchema, meeting),
  decode: (stored: Uint8Array) => fromBinary(MeetingSchema, stored),
};

const statusFromProto: Partial<Record<MeetingStatus, StoredStatus>> = {
  [MeetingStatus.SCHEDULED]: "scheduled",
  [MeetingStatus.LIVE]: "live",
  [MeetingStatus.ENDED]: "ended",
  [MeetingStatus.CANCELLED]: "cancelled",
};

/** ListMeetings' filters, with the date rule of creation; every bad one named. */
function listFilter(request: { status: MeetingStatus; startFrom?: string | undefined; startBefore?: string | undefined }) {
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
  const status = request.status === MeetingStatus.UNSPECIFIED ? null : (statusFromProto[request.status] ?? null);
  if (request.status !== MeetingStatus.UNSPECIFIED && status === null) check.add("status is not a meeting status");
  check.done();
  return { status, startFrom, startBefore };
}

/**
 * svc.meeting.v1.MeetingPageService: the public join page and its join grants. No credential:
 * holding the unguessable id is the permission. It tells only what a participant needs (no
 * attendee list).
 */
export function meetingPageService(deps: { meetings: MeetingStore; grantJoin: GrantJoin }): ServiceImpl<typeof MeetingPageService> {
  return {
    async joinMeeting(request) {
      if (!isMeetingId(request.meetingId)) throw notFound("Meeting");
      const grant = await deps.grantJoin({ meetingId: request.meetingId, displayName: request.displayName, clientAddress: request.clientAddress });
      return {
        participantId: grant.participantId,
        token: grant.token,
        serverUrl: grant.serverUrl,
        expiresAt: timestampFromDate(grant.expiresAt),
        meetingId: grant.meeting.id,
        title: grant.meeting.title,
        status: statusToProto[grant.meeting.status],
      };
    },

    async getJoinInfo(request) {
      const meeting = isMeetingId(request.id) ? await deps.meetings.get(request.id) : undefined;
      if (!meeting) throw notFound("Meeting");
      return {
        id: meeting.id,
        title: meeting.title,
        start: meeting.start ? timestampFromDate(meeting.start) : undefined,
        status: statusToProto[meeting.status],
        attendeeCount: meeting.attendees.length,
        endedAt: meeting.endedAt ? timestampFromDate(meeting.endedAt) : undefined,
      };
    },
  };
}

const statusToProto = {
  scheduled: MeetingStatus.SCHEDULED,
  live: MeetingStatus.LIVE,
  ended: MeetingStatus.ENDED,
  cancelled: MeetingStatus.CANCELLED,
} as const;

function toProtoMeeting(meeting: StoredMeeting, publicUrl: string): Meeting {
  return create(MeetingSchema, {
    id: meeting.id,
    orgId: meeting.orgId,
    title: meeting.title,
    start: meeting.start ? timestampFromDate(meeting.start) : undefined,
    status: statusToProto[meeting.status],
    attendees: meeting.attendees,
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
