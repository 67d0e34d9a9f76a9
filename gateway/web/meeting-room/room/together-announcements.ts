import type { Participant, Room } from "livekit-client";
import { announceHandToParent } from "../embed-events.ts";
import { displayNameOf } from "../participant-tile.ts";
import { handRaisedAt } from "./hands.ts";
import { spotlightOf } from "./stage-layout.ts";

/**
 * What the room says in its polite live region when the server changes a person's attributes or
 * the room's metadata: who raised a hand (a hand lowered is not worth an interruption), and who is
 * in the spotlight now. `sync` redraws the stage after either. A hand raised or lowered is also
 * posted to an embedding page (`hand-raised`).
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
      const changed = raised !== handsSeen.has(participant.identity);
      if (raised && changed && participant !== room.localParticipant) announce(`${displayNameOf(participant)} raised their hand`);
      // An embedding page hears of every hand, this person's own included (embed-events.ts).
      if (changed) announceHandToParent(participant, raised);
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
