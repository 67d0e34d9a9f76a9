import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound } from "@svc/platform";
import { meetingLimits, FORMAT_CHARACTER } from "@svc/platform/contract";
import type { MeetingRoomService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { isClosed } from "../db/meetings.ts";
import type { MeetingDetails, StoredMeeting } from "../meeting-store.ts";
import { isMeetingId } from "../meeting-id.ts";
import { closedMeeting, roomGrant, type JoinGrants } from "../room/join-grants.ts";
import { linkStanding, type JoinLinks } from "../room/join-links.ts";
import { spend } from "../room/rate-budget.ts";
import type { MeetingLifecycle } from "../room/meeting-lifecycle.ts";
import { MUTABLE_SOURCES, ROOM_TOPICS, type MutableSource, type RoomActions } from "../room/room-actions.ts";
import { hashRoomSecret, isRoomSecret } from "../room/room-secrets.ts";
import type { Recordings } from "../recording/recordings.ts";
import type { Admission, ChatMessageRecord, RoomStore } from "../room-store.ts";
import { joinResponse } from "./meeting-service.ts";
import { participantRoleWords } from "./enum-words.ts";
import { layoutOf } from "./recording-service.ts";

const MAX_CHAT_LENGTH = meetingLimits.chatMessageMaxLength;
const REACTIONS: readonly string[] = meetingLimits.reactions;
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

const notHost = () => new ConnectError("Only a host of this meeting can do this", Code.PermissionDenied);

export interface MeetingRoomServiceDependencies {
  room: RoomStore;
  grants: JoinGrants;
  lifecycle: MeetingLifecycle;
  actions: RoomActions;
  /** Closes the meeting's media room (everyone is disconnected). */
  closeRoom: (meetingId: string) => void;
  recordings: Pick<Recordings, "start" | "stop">;
  links: Pick<JoinLinks, "byId">;
  /** Chat messages per participant (their own budget: one person cannot flood the room). */
  chatLimiter: RateLimiterAbstract;
  /** Reactions per participant (meetingLimits.reactionsPerWindow per reactionWindowSeconds). */
  reactionLimiter: RateLimiterAbstract;
  /** Applies a change of the meeting's `hosts` to the link holders in its room (room-rights.ts). */
  rightsChanged: (meetingId: string) => void;
  /** At most this many chat messages are stored per meeting. */
  chatMessagesPerMeeting: number;
  /** How long a room session lives after its grant or its person's last presence in the room (the join token's lifetime). */
  sessionIdleSeconds: number;
}

/**
 * svc.meeting.v1.MeetingRoomService: the room's own API for the people in it. Every call names
 * its meeting and carries the room session of one participant of that meeting; what a call may do
 * follows from that participant's role, here, whatever the page shows or hides.
 */
export function meetingRoomService(deps: MeetingRoomServiceDependencies): ServiceImpl<typeof MeetingRoomService> {
  const { room, actions } = deps;

  /**
   * The participant a room session belongs to, in an open meeting, while the session is live, with the role it has now: a
   * removed one has no say, and one with a personal link has what the link gives today
   * (join-links.ts linkStanding), so a revoked link or a host dropped from `hosts` stops acting
   * at once, whatever the session was granted as.
   */
  async function participant(meetingId: string, roomSession: string): Promise<Admission> {
    if (!isMeetingId(meetingId)) throw notFound("Meeting");
    const admission = isRoomSecret(roomSession) ? await room.admissions.bySession(meetingId, hashRoomSecret(roomSession)) : undefined;
    if (!admission) throw new ConnectError("This room session is not valid for this meeting", Code.Unauthenticated);
    // A session lives while its person is in the room and for the connect window after their
    // grant or their last presence (a reconnection); one nobody uses from the room expires.
    if (Date.now() - admission.lastActiveAt.getTime() > deps.sessionIdleSeconds * 1_000)
      throw new ConnectError("This room session has expired: join the meeting again", Code.Unauthenticated);
    if (admission.removedAt) throw new ConnectError("You were removed from this meeting", Code.PermissionDenied, { "x-room-state": "removed" });
    const meeting = await room.meeting(meetingId);
    if (!meeting) throw notFound("Meeting");
    if (isClosed(meeting.status)) throw closedMeeting(meeting.status);
    if (!admission.linkId) return admission;
    const standing = linkStanding(await deps.links.byId(admission.linkId), meeting, new Date());
    if ("problem" in standing)
      throw new ConnectError(standing.problem.message, Code.PermissionDenied, {
        "x-link-problem": standing.problem.code,
      });
    return { ...admission, role: standing.role };
  }

  async function host(meetingId: string, roomSession: string): Promise<Admission> {
    const admission = await participant(meetingId, roomSession);
    if (admission.role !== "host") throw notHost();
    return admission;
  }

  /**
   * Someone admitted to this meeting and not removed: the target of an action on a person. Not
   * checked against the recorded presence, which follows LiveKit's webhooks and may lag the page
   * by a moment; the media server's own answer says whether they are in the room.
   */
  async function admittedParticipant(meetingId: string, participantId: string): Promise<Admission> {
    const target = await room.admissions.of(meetingId, participantId);
    if (!target || target.removedAt) throw notFound("Participant");
    return target;
  }

  const chatMessage = (message: ChatMessageRecord) => ({
    id: BigInt(message.id),
    participantId: message.participantId,
    displayName: message.displayName,
    text: message.text,
    sentAt: timestampFromDate(message.sentAt),
  });

  return {
    async getLobbyStatus(request) {
      if (!isMeetingId(request.meetingId)) throw notFound("Meeting");
      const answer = await deps.grants.lobbyStatus({
        meetingId: request.meetingId,
        ticket: request.ticket,
        clientAddress: request.clientAddress,
      });
      return {
        status: answer.status,
        grant: answer.grant ? joinResponse(answer.grant) : undefined,
      };
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

    async getSelf(request) {
      const self = await participant(request.meetingId, request.roomSession);
      return {
        participantId: self.participantId,
        role: participantRoleWords.valueOf(self.role),
      };
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

    async sendChatMessage(request) {
      const sender = await participant(request.meetingId, request.roomSession);
      await spend(deps.chatLimiter, sender.participantId, "You are sending messages too fast; wait a moment");
      const text = request.text.trim();
      if (text.length === 0) throw invalidArgument(["text is required"]);
      if ([...text].length > MAX_CHAT_LENGTH) throw invalidArgument([`text must be at most ${MAX_CHAT_LENGTH} characters`]);
      if (/[\p{Cc}]/u.test(text.replace(/[\n\t]/g, "")) || FORMAT_CHARACTER.test(text.replace(/\u200d/g, "")))
        throw invalidArgument(["text must not contain control or invisible formatting characters"]);
      const stored = await room.chat.add(
        {
          meetingId: request.meetingId,
          participantId: sender.participantId,
          displayName: sender.displayName,
          text,
        },
        deps.chatMessagesPerMeeting,
      );
      if (!stored) {
        const meeting = await room.meeting(request.meetingId);
        if (!meeting || isClosed(meeting.status)) throw closedMeeting(meeting?.status ?? "ended");
        throw new ConnectError(`This meeting's chat is full (${deps.chatMessagesPerMeeting} messages)`, Code.ResourceExhausted);
      }
      const message = chatMessage(stored);
      await actions.broadcast(request.meetingId, ROOM_TOPICS.chat, {
        id: stored.id,
        participantId: stored.participantId,
        displayName: stored.displayName,
        text: stored.text,
        sentAt: stored.sentAt.toISOString(),
      });
      return { message };
    },

    async listChatMessages(request) {
      await participant(request.meetingId, request.roomSession);
      return {
        messages: (await room.chat.of(request.meetingId)).map(chatMessage),
      };
    },

    async startRoomRecording(request) {
      await host(request.meetingId, request.roomSession);
      const layout = layoutOf(request.layout);
      const meeting = await room.meeting(request.meetingId);
      if (!meeting) throw notFound("Meeting");
      const recording = await deps.recordings.start(meeting, layout, "host");
      return { recordingId: recording.id, layout: recording.layout };
    },

    async stopRoomRecording(request) {
      await host(request.meetingId, request.roomSession);
      const active = await room.activeRecording(request.meetingId);
      if (!active) throw new ConnectError("Nothing is being recorded in this meeting", Code.NotFound);
      await deps.recordings.stop(active);
      return { recordingId: active.id };
    },

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

    async sendReaction(request) {
      const sender = await participant(request.meetingId, request.roomSession);
      if (!REACTIONS.includes(request.emoji)) throw invalidArgument([`emoji must be one of ${REACTIONS.join(" ")}`]);
      await spend(deps.reactionLimiter, sender.participantId, "You are reacting too often; wait a moment");
      await actions.broadcast(request.meetingId, ROOM_TOPICS.reaction, {
        participantId: sender.participantId,
        emoji: request.emoji,
      });
      return { emoji: request.emoji };
    },

    async setSpotlight(request) {
      await host(request.meetingId, request.roomSession);
      if (request.participantId) await admittedParticipant(request.meetingId, request.participantId);
      await actions.setSpotlight(request.meetingId, request.participantId || null);
      return { participantId: request.participantId };
    },

    async getRoomRecording(request) {
      await participant(request.meetingId, request.roomSession);
      const meeting = await room.meeting(request.meetingId);
      const active = await room.activeRecording(request.meetingId);
      return {
        recording: active !== undefined,
        capturing: active?.capturing ?? false,
        layout: active?.layout ?? "",
        mode: meeting?.settings.recording ?? "off",
      };
    },
  };
}
