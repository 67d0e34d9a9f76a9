import type { Participant, Room } from "livekit-client";
import { displayNameOf } from "../participant-tile.ts";
import { handRaisedAt } from "./hands.ts";
import { spotlightOf } from "./stage-layout.ts";

/**
 * What the room says in its polite live region when the server changes a person's attributes or
 * the room's metadata: who raised a hand (a hand lowered is not worth an interruption), and who is
 * in the spotlight now. `sync` redraws the stage after either.
 */
export function togetherAnnouncements(room: Room, announce: (text: string) => void, sync: () => void) {
  const handsSeen = new Set<string>();
  let spotlit = spotlightOf(room.metadata);
  const nameOf = (identity: string) => {
    if (identity === room.localParticipant.identity) return "You";
    const participant = room.remoteParticipants.get(identity);
    return participant ? displayNameOf(participant) : undefined;
  };
  return {
    onAttributesChanged(_changed: Record<string, string>, participant: Participant) {
      const raised = handRaisedAt(participant) !== undefined;
      if (raised && !handsSeen.has(participant.identity) && participant !== room.localParticipant) announce(`${displayNameOf(participant)} raised their hand`);
      if (raised) handsSeen.add(participant.identity);
      else handsSeen.delete(participant.identity);
      sync();
    },
    onMetadataChanged() {
      const now = spotlightOf(room.metadata);
      if (now !== spotlit) {
        const name = now === undefined ? undefined : nameOf(now);
        announce(name === undefined ? "The spotlight is off" : name === "You" ? "You are in the spotlight for everyone" : `${name} is in the spotlight`);
        spotlit = now;
      }
      sync();
    },
  };
}
