import { DataPacket_Kind, ServerError, TrackSource, type RoomServiceClient, type VideoGrant } from "livekit-server-sdk";
import type { Logger } from "@svc/platform";

/** The sources a host may turn off: someone's microphone, camera or screen share. */
export const MUTABLE_SOURCES = { microphone: TrackSource.MICROPHONE, camera: TrackSource.CAMERA, screen_share: TrackSource.SCREEN_SHARE } as const;
export type MutableSource = keyof typeof MUTABLE_SOURCES;

/** Data-packet topics the server sends to the room; the page listens to these. */
export const ROOM_TOPICS = { chat: "svc.chat", lobby: "svc.lobby", recording: "svc.recording", role: "svc.role", reaction: "svc.reaction" } as const;

/**
 * The participant attribute that carries a raised hand: the time it was raised (milliseconds
 * since the epoch, as text), so every page shows hands in the order raised. Only this service
 * sets it (no participant's grant may update its own attributes).
 */
export const HAND_ATTRIBUTE = "hand";

const isMissing = (error: unknown) => error instanceof ServerError && (error.status === 404 || error.code === "not_found");

/**
 * What this service does to a meeting's media room on a host's behalf, through LiveKit's room
 * service (with the server's credentials: no participant holds a room-admin grant).
 */
export function createRoomActions(deps: { rooms: RoomServiceClient; logger: Logger }) {
  const { rooms, logger } = deps;
  const encoder = new TextEncoder();

  return {
    /** Mutes the participant's track of `source`; false when they have none published (or are not in the room). */
    async mute(meetingId: string, participantId: string, source: MutableSource): Promise<boolean> {
      let tracks;
      try {
        tracks = (await rooms.getParticipant(meetingId, participantId)).tracks;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
      const targets = tracks.filter((track) => track.source === MUTABLE_SOURCES[source] && !track.muted);
      for (const track of targets) await rooms.mutePublishedTrack(meetingId, participantId, track.sid, true);
      return targets.length > 0;
    },

    /** Disconnects the participant (nothing to do when they already left). */
    async remove(meetingId: string, participantId: string): Promise<void> {
      try {
        await rooms.removeParticipant(meetingId, participantId);
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    },

    /**
     * Gives a participant in the room a new role: the `role` attribute the others' panels show, and
     * the publishing permission that goes with it (`grant`: join-grants.ts roomGrant). Nothing to
     * do when they already left.
     */
    async setRole(meetingId: string, participantId: string, role: string, grant: VideoGrant): Promise<void> {
      try {
        await rooms.updateParticipant(meetingId, participantId, {
          attributes: { role },
          permission: {
            canSubscribe: grant.canSubscribe ?? true,
            canPublish: grant.canPublish ?? true,
            canPublishData: grant.canPublishData ?? false,
            canPublishSources: grant.canPublishSources ?? [],
            canUpdateMetadata: grant.canUpdateOwnMetadata ?? false,
          },
        });
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    },

    /**
     * Raises (`raisedAt`) or lowers (null) a participant's hand: their `hand` attribute, which
     * LiveKit deletes when set to "". False when they are not in the room.
     */
    async setHand(meetingId: string, participantId: string, raisedAt: Date | null): Promise<boolean> {
      try {
        await rooms.updateParticipant(meetingId, participantId, { attributes: { [HAND_ATTRIBUTE]: raisedAt ? String(raisedAt.getTime()) : "" } });
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },

    /** The room's metadata: who is spotlit for everyone (`{"spotlight": participantId}`; `{}` for nobody). */
    async setSpotlight(meetingId: string, participantId: string | null): Promise<void> {
      await rooms.updateRoomMetadata(meetingId, JSON.stringify(participantId ? { spotlight: participantId } : {}));
    },

    /** Sends a reliable data packet from the server on `topic` (to everyone, or to `to`). Best effort: the room may have closed. */
    async broadcast(meetingId: string, topic: string, payload: unknown, to?: string[]): Promise<void> {
      try {
        await rooms.sendData(meetingId, encoder.encode(JSON.stringify(payload)), DataPacket_Kind.RELIABLE, {
          topic,
          ...(to ? { destinationIdentities: to } : {}),
        });
      } catch (error) {
        if (!isMissing(error)) logger.warn({ err: error, meetingId, topic }, "could not send a data packet to the meeting room");
      }
    },
  };
}

export type RoomActions = ReturnType<typeof createRoomActions>;
