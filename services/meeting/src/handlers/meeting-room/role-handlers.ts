import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound } from "@svc/platform";
import { meetingLimits } from "@svc/platform/contract";
import type { MeetingRoomService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { MeetingDetails, StoredMeeting } from "../../meeting-store.ts";
import { roomGrant } from "../../room/join-grants.ts";
import { ROOM_TOPICS } from "../../room/room-actions.ts";
import type { Admission } from "../../room-store.ts";
import { participantRoleWords } from "../enum-words.ts";
import type { MeetingRoomServiceDependencies, RoomAccess } from "./room-context.ts";

/**
 * The meeting's invitations with `email` among the hosts (`host`) or back among the attendees:
 * where it stood, in the same spelling; at most `hostsMax` hosts.
 */
function withHost(meeting: StoredMeeting, email: string, host: boolean): MeetingDetails {
  const same = (address: string) => address.toLowerCase() === email.toLowerCase();
  const spelled = [...meeting.hosts, ...meeting.attendees].find(same) ?? email;
  const hosts = meeting.hosts.filter((address) => !same(address));
  const attendees = meeting.attendees.filter((address) => !same(address));
  if (host && hosts.length >= meetingLimits.hostsMax)
    throw new ConnectError(`This meeting already has ${meetingLimits.hostsMax} hosts`, Code.FailedPrecondition);
  return {
    ...meeting,
    hosts: host ? [...hosts, spelled] : hosts,
    attendees: host ? attendees : [...attendees, spelled],
  };
}

type RoleHandlers = Pick<ServiceImpl<typeof MeetingRoomService>, "setParticipantRole">;

/** A host makes someone a host or takes it back: an invited person through the meeting's invitations, anyone else for this room only. */
export function roleHandlers(deps: MeetingRoomServiceDependencies, { host, admittedParticipant }: RoomAccess): RoleHandlers {
  const { room, actions } = deps;
  return {
    async setParticipantRole(request) {
      const self = await host(request.meetingId, request.roomSession);
      if (request.participantId === self.participantId) throw invalidArgument(["a host cannot change their own role; another host can"]);
      const target = await admittedParticipant(request.meetingId, request.participantId);
      if (target.linkId && !target.email)
        throw new ConnectError("Someone who joined with a guest link cannot be made a host: invite them as an attendee instead", Code.FailedPrecondition);
      const meeting = await room.meeting(request.meetingId);
      if (!meeting) throw notFound("Meeting");
      let role: Admission["role"];
      if (target.email) {
        // An invited person moves within the meeting's invitations, as a PATCH of `hosts` would
        // (meeting.updated; their link's role follows), then everyone with a link is brought in line.
        const email = target.email;
        await deps.lifecycle.update(meeting.orgId, meeting.id, (current) => withHost(current, email, request.host));
        role = request.host ? "host" : "attendee";
        await room.admissions.setRole(meeting.id, { email }, role);
        deps.rightsChanged(meeting.id);
      } else {
        role = request.host ? "host" : "guest";
        await room.admissions.setRole(meeting.id, { participantId: target.participantId }, role);
        // Their attribute and publishing permission now, and a nudge to their page to read its role again.
        await actions.setRole(meeting.id, target.participantId, role, roomGrant(meeting, role));
        await actions.broadcast(meeting.id, ROOM_TOPICS.role, { type: "role" }, [target.participantId]);
      }
      return { role: participantRoleWords.valueOf(role) };
    },
  };
}
