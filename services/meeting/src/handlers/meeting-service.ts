import type { ServiceImpl } from "@connectrpc/connect";
import type { MeetingService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { attendanceHandlers } from "./meeting/attendance-handlers.ts";
import { joinLinkHandlers } from "./meeting/join-link-handlers.ts";
import type { MeetingServiceDependencies } from "./meeting/meeting-context.ts";
import { meetingHandlers } from "./meeting/meeting-handlers.ts";

export { joinUrl, scopes, type MeetingServiceDependencies } from "./meeting/meeting-context.ts";

/**
 * svc.meeting.v1.MeetingService. Every call authenticates the caller through identity and checks
 * its OAuth scope first; every query is limited to the caller's organization (meeting-context.ts,
 * meetingOfOrg). The handlers are in meeting/, a module for each part: the meeting itself, its
 * personal join links, and its attendance.
 */
export function meetingService(deps: MeetingServiceDependencies): ServiceImpl<typeof MeetingService> {
  return {
    ...meetingHandlers(deps),
    ...joinLinkHandlers(deps),
    ...attendanceHandlers(deps),
  };
}
