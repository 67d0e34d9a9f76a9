import type { ServiceImpl } from "@connectrpc/connect";
import type { MeetingRoomService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { chatHandlers } from "./meeting-room/chat-handlers.ts";
import { lobbyHandlers } from "./meeting-room/lobby-handlers.ts";
import { peopleHandlers } from "./meeting-room/people-handlers.ts";
import { roleHandlers } from "./meeting-room/role-handlers.ts";
import { roomAccess, type MeetingRoomServiceDependencies } from "./meeting-room/room-context.ts";
import { roomRecordingHandlers } from "./meeting-room/room-recording-handlers.ts";

export type { MeetingRoomServiceDependencies } from "./meeting-room/room-context.ts";

/**
 * svc.meeting.v1.MeetingRoomService: the room's own API for the people in it. Every call names
 * its meeting and carries the room session of one participant of that meeting; what a call may do
 * follows from that participant's role, here, whatever the page shows or hides (room-context.ts,
 * roomAccess). The handlers are in meeting-room/, a module for each part of the room.
 */
export function meetingRoomService(deps: MeetingRoomServiceDependencies): ServiceImpl<typeof MeetingRoomService> {
  const access = roomAccess(deps);
  return {
    ...lobbyHandlers(deps, access),
    ...peopleHandlers(deps, access),
    ...roleHandlers(deps, access),
    ...chatHandlers(deps, access),
    ...roomRecordingHandlers(deps, access),
  };
}
