import { toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound, IDEMPOTENT_REPLAYED_HEADER, idempotencyKeyOf } from "@svc/platform";
import { meetingLimits } from "@svc/platform/contract";
import { idempotentRequest } from "@svc/platform/db";
import { CreateMeetingRequestSchema, type Meeting, type MeetingService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { StoredMeeting } from "../../meeting-store.ts";
import { isMeetingId, newMeetingId } from "../../meeting-id.ts";
import { validateMeetingRequest, validateMeetingUpdate } from "../../meeting-request.ts";
import { markIfCancelled } from "../cancelled-reads.ts";
import { meetingOfOrg, scopes, type MeetingServiceDependencies } from "./meeting-context.ts";
import { decodePageToken, encodePageToken, listFilter, meetingCodec, requestInput, toProtoMeeting } from "./meeting-wire.ts";

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = meetingLimits.pageSizeMax;

type MeetingHandlers = Pick<
  ServiceImpl<typeof MeetingService>,
  "createMeeting" | "getMeeting" | "listMeetings" | "updateMeeting" | "endMeeting" | "cancelMeeting"
>;

/** A meeting's own life through the API: created, read, listed, changed, ended and cancelled. */
export function meetingHandlers(deps: MeetingServiceDependencies): MeetingHandlers {
  const { authenticate, meetings, lifecycle, logger } = deps;
  const toProto = (meeting: StoredMeeting) => toProtoMeeting(meeting, deps.publicUrl);
  const ofOrg = meetingOfOrg(meetings);
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
      const meeting = await ofOrg(caller.orgId, request.id);
      markIfCancelled(meeting, context);
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
  };
}
