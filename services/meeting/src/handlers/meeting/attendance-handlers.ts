import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument } from "@svc/platform";
import { meetingLimits } from "@svc/platform/contract";
import type { MeetingService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { noShowsAreDue, peopleOf } from "../../attendance.ts";
import type { RoomVisit } from "../../visit-store.ts";
import { markIfCancelled } from "../cancelled-reads.ts";
import { meetingStatusWords, participantRoleWords } from "../enum-words.ts";
import { meetingOfOrg, scopes, type MeetingServiceDependencies } from "./meeting-context.ts";

const PARTICIPANTS_PAGE_SIZE = 50;
const { usageDaysDefault: USAGE_DAYS_DEFAULT, usageDaysMax: USAGE_DAYS_MAX, pageSizeMax: MAX_PAGE_SIZE } = meetingLimits;

type AttendanceHandlers = Pick<ServiceImpl<typeof MeetingService>, "listParticipants" | "getAttendance" | "getUsage">;

/** Who came to a meeting's room and for how long (each visit, and per invited person), and the organization's use. */
export function attendanceHandlers(deps: MeetingServiceDependencies): AttendanceHandlers {
  const { authenticate, visits } = deps;
  const ofOrg = meetingOfOrg(deps.meetings);
  return {
    async listParticipants(request, context) {
      const caller = await authenticate(context, scopes.read);
      const meeting = await ofOrg(caller.orgId, request.meetingId);
      markIfCancelled(meeting, context);
      if (request.pageSize < 0) throw invalidArgument(["page_size must not be negative"]);
      const limit = request.pageSize === 0 ? PARTICIPANTS_PAGE_SIZE : Math.min(request.pageSize, MAX_PAGE_SIZE);
      const after = request.pageToken ? decodeVisitToken(request.pageToken) : null;
      const page = await visits.page(meeting.id, { limit, after });
      const now = Date.now();
      const last = page.visits.at(-1);
      return {
        participants: page.visits.map((visit) => participantRecord(visit, now)),
        nextPageToken: page.more && last ? encodeVisitToken(last) : "",
      };
    },

    async getAttendance(request, context) {
      const caller = await authenticate(context, scopes.read);
      const meeting = await ofOrg(caller.orgId, request.meetingId);
      markIfCancelled(meeting, context);
      const now = new Date();
      const noShowsDue = noShowsAreDue(meeting, now);
      const people = peopleOf(meeting, await visits.of(meeting.id), now);
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
      const usage = await visits.usage(caller.orgId, request.days || USAGE_DAYS_DEFAULT);
      return {
        days: usage.days,
        recordingMinutes: usage.recordingMinutes,
        storageBytes: BigInt(usage.storageBytes),
        recordingsStored: usage.recordingsStored,
      };
    },
  };
}

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
