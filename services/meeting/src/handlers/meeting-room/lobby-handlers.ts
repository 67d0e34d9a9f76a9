import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { notFound } from "@svc/platform";
import type { MeetingRoomService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { isMeetingId } from "../../meeting-id.ts";
import { closedMeeting } from "../../room/join-grants.ts";
import { joinResponse } from "../meeting-page-service.ts";
import type { MeetingRoomServiceDependencies, RoomAccess } from "./room-context.ts";

type LobbyHandlers = Pick<ServiceImpl<typeof MeetingRoomService>, "getLobbyStatus" | "listLobby" | "denyAllWaiting" | "decideLobbyEntry" | "setRoomLocked">;

/** The lobby: a waiting person's status, and the hosts' list, decisions and the room's lock. */
export function lobbyHandlers({ room, grants }: MeetingRoomServiceDependencies, { host }: RoomAccess): LobbyHandlers {
  return {
    async getLobbyStatus(request) {
      if (!isMeetingId(request.meetingId)) throw notFound("Meeting");
      const answer = await grants.lobbyStatus({ meetingId: request.meetingId, ticket: request.ticket, clientAddress: request.clientAddress });
      return { status: answer.status, grant: answer.grant ? joinResponse(answer.grant) : undefined };
    },

    async listLobby(request) {
      await host(request.meetingId, request.roomSession);
      const meeting = await room.meeting(request.meetingId);
      const waiting = await room.lobby.waiting(request.meetingId);
      return {
        locked: meeting?.roomLocked ?? false,
        waiting: waiting.entries.map((entry) => ({
          entryId: entry.id,
          displayName: entry.displayName,
          waitingSince: timestampFromDate(entry.createdAt),
        })),
        waitingCount: waiting.count,
      };
    },

    async denyAllWaiting(request) {
      await host(request.meetingId, request.roomSession);
      return { denied: await room.lobby.denyAll(request.meetingId) };
    },

    async decideLobbyEntry(request) {
      await host(request.meetingId, request.roomSession);
      if (!/^[0-9a-f-]{36}$/i.test(request.entryId)) throw notFound("Lobby entry");
      const status = await room.lobby.decide(request.meetingId, request.entryId, request.admit);
      if (!status) throw notFound("Lobby entry");
      return { status };
    },

    async setRoomLocked(request) {
      await host(request.meetingId, request.roomSession);
      if (!(await room.setLocked(request.meetingId, request.locked))) throw closedMeeting("ended");
      return { locked: request.locked };
    },
  };
}
