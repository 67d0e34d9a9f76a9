import type { Logger } from "@svc/platform";
import type { Pool } from "@svc/platform/db";
import { getMeeting, isClosed } from "../db/meetings.ts";
import { presentLinkHolders } from "../db/room-admissions.ts";
import { roomGrant } from "./join-grants.ts";
import { linkStanding, type JoinLinks } from "./join-links.ts";
import { ROOM_TOPICS, type RoomActions } from "./room-actions.ts";

/**
 * Applies a change of who a meeting invites, or of its links (PATCH of `hosts`/`attendees`, a
 * revoked link), to the people in its room at once, rather than at their next action: everyone
 * there with a personal link gets the role the link gives now (the `role` attribute and the
 * publishing permission on the media server), or is removed from the room when the link no
 * longer admits anyone; and their pages are told (data packet `svc.role`) to read their role
 * again (GET …/room/self), so a demoted host's controls disappear without a reload. The room
 * API reads the role live anyway (meeting-room-service.ts): this is what the person sees.
 */
export function createRoomRights(deps: { pool: Pool; links: Pick<JoinLinks, "byId">; actions: RoomActions; logger: Logger }) {
  const { pool, actions } = deps;

  async function apply(meetingId: string): Promise<void> {
    const meeting = await getMeeting(pool, meetingId);
    if (!meeting || isClosed(meeting.status)) return;
    const told: string[] = [];
    const now = new Date();
    for (const admission of await presentLinkHolders(pool, meetingId)) {
      const standing = linkStanding(await deps.links.byId(admission.linkId!), meeting, now);
      if ("problem" in standing) await actions.remove(meetingId, admission.participantId);
      else await actions.setRole(meetingId, admission.participantId, standing.role, roomGrant(meeting, standing.role));
      told.push(admission.participantId);
    }
    if (told.length > 0) await actions.broadcast(meetingId, ROOM_TOPICS.role, { type: "role" }, told);
  }

  return {
    /** Fire and forget: the caller's answer does not wait for the media server. */
    changed(meetingId: string): void {
      apply(meetingId).catch((error: unknown) =>
        deps.logger.warn({ err: error, meetingId }, "could not apply changed rights to the people in the meeting room"),
      );
    },
  };
}

export type RoomRights = ReturnType<typeof createRoomRights>;
