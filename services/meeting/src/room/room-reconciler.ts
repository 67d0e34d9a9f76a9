import { ServerError, type ParticipantInfo, type RoomServiceClient } from "livekit-server-sdk";
import type { Logger } from "@svc/platform";
import type { Pool } from "@svc/platform/db";
import { meetingsWithPresence } from "../db/meetings.ts";
import { presentVisits } from "../db/room-participants.ts";
import { EGRESS_PARTICIPANT_KIND } from "../recording/recorder.ts";
import { presenceOf } from "./media-webhooks.ts";
import type { MeetingLifecycle } from "./meeting-lifecycle.ts";

const MEETINGS_PER_RUN = 500;

/**
 * Compares recorded presence with the media server's rooms, so a lost webhook (or a restart
 * while people were in a meeting) never leaves a meeting live forever: someone recorded as
 * present but not in the room has left; someone in the room but not recorded has joined; a
 * room that no longer exists has closed. Each correction goes through the same lifecycle as a
 * webhook would, and a webhook that arrives late afterwards finds nothing left to change.
 */
export function createRoomReconciler(deps: { pool: Pool; rooms: RoomServiceClient; lifecycle: MeetingLifecycle; logger: Logger }) {
  const { pool, rooms, lifecycle, logger } = deps;

  /** The room's participants; undefined when the media server has no such room. */
  async function participantsInRoom(meetingId: string): Promise<ParticipantInfo[] | undefined> {
    try {
      // A recorder in the room is not one of the meeting's people (media-webhooks.ts).
      return (await rooms.listParticipants(meetingId)).filter((participant) => participant.kind !== EGRESS_PARTICIPANT_KIND);
    } catch (error) {
      if (error instanceof ServerError && (error.status === 404 || error.code === "not_found")) return undefined;
      throw error;
    }
  }

  async function reconcileMeeting(meetingId: string, status: string) {
    // Recorded presence first, then the room: someone who joins in between is in the room but
    // not yet recorded (recorded now, and the late webhook finds nothing to do), never the reverse.
    const recorded = await presentVisits(pool, meetingId);
    const inRoom = await participantsInRoom(meetingId);
    const now = new Date();
    if (!inRoom) return lifecycle.roomClosed(meetingId, now);
    const sessionsInRoom = new Set(inRoom.map((participant) => participant.sid));
    for (const visit of recorded) {
      if (!sessionsInRoom.has(visit.sessionId)) {
        logger.info({ meetingId, participantId: visit.participantId }, "reconciliation: participant is no longer in the room");
        await lifecycle.participantLeft(visit, now);
      }
    }
    const recordedSessions = new Set(recorded.map((visit) => visit.sessionId));
    for (const participant of inRoom) {
      if (recordedSessions.has(participant.sid)) continue;
      const outcome = await lifecycle.participantJoined(presenceOf(meetingId, participant, now));
      if (outcome.evict || status === "ended") await rooms.removeParticipant(meetingId, participant.identity);
    }
  }

  return async function reconcile(): Promise<void> {
    for (const meeting of await meetingsWithPresence(pool, MEETINGS_PER_RUN)) await reconcileMeeting(meeting.id, meeting.status);
  };
}
