import { Code, ConnectError } from "@connectrpc/connect";
import { notFound } from "@svc/platform";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { isClosed } from "../../db/meetings.ts";
import { isMeetingId } from "../../meeting-id.ts";
import { closedMeeting, type JoinGrants } from "../../room/join-grants.ts";
import { linkStanding, type JoinLinks } from "../../room/join-links.ts";
import type { MeetingLifecycle } from "../../room/meeting-lifecycle.ts";
import type { RoomActions } from "../../room/room-actions.ts";
import { hashRoomSecret, isRoomSecret } from "../../room/room-secrets.ts";
import type { Recordings } from "../../recording/recordings.ts";
import type { Admission, RoomStore } from "../../room-store.ts";

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

export const notHost = () => new ConnectError("Only a host of this meeting can do this", Code.PermissionDenied);

/** Who is calling the room's API, the one check every handler starts with. */
export interface RoomAccess {
  /**
   * The participant a room session belongs to, in an open meeting, while the session is live, with the role it has now: a
   * removed one has no say, and one with a personal link has what the link gives today
   * (join-links.ts linkStanding), so a revoked link or a host dropped from `hosts` stops acting
   * at once, whatever the session was granted as.
   */
  participant(meetingId: string, roomSession: string): Promise<Admission>;
  /** The participant, who must be a host now. */
  host(meetingId: string, roomSession: string): Promise<Admission>;
  /**
   * Someone admitted to this meeting and not removed: the target of an action on a person. Not
   * checked against the recorded presence, which follows LiveKit's webhooks and may lag the page
   * by a moment; the media server's own answer says whether they are in the room.
   */
  admittedParticipant(meetingId: string, participantId: string): Promise<Admission>;
}

export function roomAccess({ room, links, sessionIdleSeconds }: MeetingRoomServiceDependencies): RoomAccess {
  async function participant(meetingId: string, roomSession: string): Promise<Admission> {
    if (!isMeetingId(meetingId)) throw notFound("Meeting");
    const admission = isRoomSecret(roomSession) ? await room.admissions.bySession(meetingId, hashRoomSecret(roomSession)) : undefined;
    if (!admission) throw new ConnectError("This room session is not valid for this meeting", Code.Unauthenticated);
    // A session lives while its person is in the room and for the connect window after their
    // grant or their last presence (a reconnection); one nobody uses from the room expires.
    if (Date.now() - admission.lastActiveAt.getTime() > sessionIdleSeconds * 1_000)
      throw new ConnectError("This room session has expired: join the meeting again", Code.Unauthenticated);
    if (admission.removedAt) throw new ConnectError("You were removed from this meeting", Code.PermissionDenied, { "x-room-state": "removed" });
    const meeting = await room.meeting(meetingId);
    if (!meeting) throw notFound("Meeting");
    if (isClosed(meeting.status)) throw closedMeeting(meeting.status);
    if (!admission.linkId) return admission;
    const standing = linkStanding(await links.byId(admission.linkId), meeting, new Date());
    if ("problem" in standing)
      throw new ConnectError(standing.problem.message, Code.PermissionDenied, {
        "x-link-problem": standing.problem.code,
      });
    return { ...admission, role: standing.role };
  }

  return {
    participant,

    async host(meetingId, roomSession) {
      const admission = await participant(meetingId, roomSession);
      if (admission.role !== "host") throw notHost();
      return admission;
    },

    async admittedParticipant(meetingId, participantId) {
      const target = await room.admissions.of(meetingId, participantId);
      if (!target || target.removedAt) throw notFound("Participant");
      return target;
    },
  };
}
