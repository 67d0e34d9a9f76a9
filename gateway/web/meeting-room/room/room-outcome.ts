import { DisconnectReason } from "livekit-client";
import type { Outcome } from "../meeting.ts";

/** Why the room ended for this person, from LiveKit's disconnect reason. */
export function outcomeOf(reason: DisconnectReason | undefined): Outcome {
  switch (reason) {
    case DisconnectReason.CLIENT_INITIATED:
      return { kind: "left" };
    case DisconnectReason.ROOM_DELETED:
      return { kind: "ended" };
    case DisconnectReason.PARTICIPANT_REMOVED:
      return { kind: "removed" };
    case DisconnectReason.DUPLICATE_IDENTITY:
      return { kind: "disconnected", detail: "You joined this meeting again from another window, which took over this connection." };
    case DisconnectReason.SERVER_SHUTDOWN:
      return { kind: "disconnected", detail: "The media server shut down. Try joining again in a moment." };
    default:
      return { kind: "disconnected", detail: "The connection to the meeting was lost and could not be restored." };
  }
}
