import { DisconnectReason } from "livekit-client";
import type { Outcome } from "../meeting.ts";
import type { RoomCall } from "../room-api.ts";

/** Why the room ended for this person, from LiveKit's disconnect reason. */
function outcomeOf(reason: DisconnectReason | undefined): Outcome {
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
      return { kind: "disconnected", detail: lostConnection };
  }
}

const lostConnection = "The connection to the meeting was lost and could not be restored.";

/**
 * The outcome, with the room API asked whenever the media server's reason is not certain. The
 * reason travels in the media server's last message, which can lose the race with its closing of
 * the connection: a room closed by "End meeting for everyone" then looks like a lost connection
 * (the client's resume finds no room) to some of the people in it. The meeting service knows: the
 * meeting has ended (410), or this person may not be in it any more (403, in the API's own words).
 */
export async function settledOutcome(reason: DisconnectReason | undefined, askSelf: () => Promise<RoomCall<unknown>>): Promise<Outcome> {
  const told = outcomeOf(reason);
  if (told.kind !== "disconnected" || told.detail !== lostConnection) return told;
  const answer = await askSelf();
  if (answer.ok) return told;
  if (answer.status === 410) return { kind: "ended" };
  if (answer.status === 403) return { kind: "refused", status: 403, message: answer.error };
  return told;
}
