import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound } from "@svc/platform";
import type { MeetingRoomService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { MUTABLE_SOURCES, type MutableSource } from "../../room/room-actions.ts";
import { participantRoleWords } from "../enum-words.ts";
import { notHost, type MeetingRoomServiceDependencies, type RoomAccess } from "./room-context.ts";

type PeopleHandlers = Pick<
  ServiceImpl<typeof MeetingRoomService>,
  "getSelf" | "muteParticipant" | "removeParticipant" | "endForEveryone" | "setHandRaised" | "setSpotlight"
>;

/** The people in the room: who the caller is, a host's mute, removal, spotlight and end for everyone, and raised hands. */
export function peopleHandlers(deps: MeetingRoomServiceDependencies, { participant, host, admittedParticipant }: RoomAccess): PeopleHandlers {
  const { room, actions } = deps;
  return {
    async getSelf(request) {
      const self = await participant(request.meetingId, request.roomSession);
      return {
        participantId: self.participantId,
        role: participantRoleWords.valueOf(self.role),
      };
    },

    async muteParticipant(request) {
      await host(request.meetingId, request.roomSession);
      if (!(request.source in MUTABLE_SOURCES)) throw invalidArgument(["source must be microphone, camera or screen_share"]);
      if (!(await room.admissions.of(request.meetingId, request.participantId))) throw notFound("Participant");
      return {
        muted: await actions.mute(request.meetingId, request.participantId, request.source as MutableSource),
      };
    },

    async removeParticipant(request) {
      const self = await host(request.meetingId, request.roomSession);
      if (request.participantId === self.participantId) throw invalidArgument(["a host cannot remove themselves; leave the meeting instead"]);
      // Recorded first: from now on their link and browser session are refused (a connection with
      // a token they kept is removed on arrival: room-entry.ts), and then every admission of that
      // browser session and link (a second tab) is disconnected.
      const removedIds = await room.admissions.remove(request.meetingId, request.participantId);
      if (removedIds.length === 0) throw notFound("Participant");
      await Promise.all(removedIds.map((participantId) => actions.remove(request.meetingId, participantId)));
      return {};
    },

    async endForEveryone(request) {
      await host(request.meetingId, request.roomSession);
      const result = await deps.lifecycle.end(null, request.meetingId, "host");
      if (result?.endedNow) deps.closeRoom(request.meetingId);
      return {};
    },

    async setHandRaised(request) {
      const self = await participant(request.meetingId, request.roomSession);
      const participantId = request.participantId || self.participantId;
      // Anyone raises and lowers their own hand; a host lowers anyone's (nobody raises another's).
      if (participantId !== self.participantId) {
        if (request.raised) throw new ConnectError("You can only raise your own hand", Code.PermissionDenied);
        if (self.role !== "host") throw notHost();
        await admittedParticipant(request.meetingId, participantId);
      }
      const raisedAt = request.raised ? new Date() : null;
      if (!(await actions.setHand(request.meetingId, participantId, raisedAt))) throw notFound("Participant");
      return {
        participantId,
        raised: request.raised,
        raisedAt: raisedAt ? timestampFromDate(raisedAt) : undefined,
      };
    },

    async setSpotlight(request) {
      await host(request.meetingId, request.roomSession);
      if (request.participantId) await admittedParticipant(request.meetingId, request.participantId);
      await actions.setSpotlight(request.meetingId, request.participantId || null);
      return { participantId: request.participantId };
    },
  };
}
