import type { PoolClient } from "@svc/platform/db";
import { findJoinLinkById } from "../db/join-links.ts";
import type { StoredMeeting } from "../meeting-store.ts";
import { entryRecordOf } from "../db/room-admissions.ts";
import { linkStanding } from "./join-links.ts";

/** Why a connection to a meeting's media room is not let stay (it is removed from the room at once). */
export type EntryRefusal = "removed" | "link" | "locked" | "lobby";

/**
 * Whether the participant identity that just connected to the meeting's media room may stay,
 * judged when it connects (LiveKit's participant_joined), whatever token it connected with: a
 * token stays valid for its lifetime, and LiveKit refreshes a connected client's token itself, so
 * the rules have to hold at the connection, not only at the grant. Refused: an admission that was
 * removed (or whose browser session or link was); one whose personal link no longer admits anyone
 * (revoked, expired, no longer invited); and, for anyone but a host entering for the first time,
 * a room that is locked, or a lobby that the admission did not come through (a grant from before
 * the lobby was turned on). A reconnection of someone who was in already is not a new entry. An
 * identity without an admission is not ours to judge (undefined).
 */
export async function entryRefusal(client: PoolClient, meeting: StoredMeeting, participantId: string, now = new Date()): Promise<EntryRefusal | undefined> {
  const entry = await entryRecordOf(client, meeting.id, participantId);
  if (!entry) return undefined;
  if (entry.barred) return "removed";
  let role = entry.role;
  if (entry.linkId) {
    const standing = linkStanding(await findJoinLinkById(client, entry.linkId), meeting, now);
    if ("problem" in standing) return "link";
    role = standing.role;
  }
  if (role === "host" || entry.enteredBefore) return undefined;
  if (meeting.roomLocked) return "locked";
  if (meeting.settings.lobby && !entry.admittedFromLobby) return "lobby";
  return undefined;
}
