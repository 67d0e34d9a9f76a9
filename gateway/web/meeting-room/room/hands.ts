import type { Participant } from "livekit-client";

/**
 * The participant attribute the meeting service sets when someone raises their hand (the time
 * raised, in milliseconds since the epoch): services/meeting/src/room/room-actions.ts
 * HAND_ATTRIBUTE. Participants cannot set their own attributes (their grant has no
 * `canUpdateOwnMetadata`), so a hand shown here was raised through the room API.
 */
const HAND_ATTRIBUTE = "hand";

/** When the participant raised their hand; undefined when it is down. */
export function handRaisedAt(participant: Participant): number | undefined {
  const value = Number(participant.attributes[HAND_ATTRIBUTE]);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The participants' identities with a raised hand, first raised first. */
export function raisedHands(participants: Iterable<Participant>): string[] {
  return [...participants]
    .flatMap((participant) => {
      const at = handRaisedAt(participant);
      return at === undefined ? [] : [{ identity: participant.identity, at }];
    })
    .sort((a, b) => a.at - b.at || a.identity.localeCompare(b.identity))
    .map((hand) => hand.identity);
}

/** "1st", "2nd", "3rd", "11th": the place in the queue of raised hands, as said and shown. */
export function ordinal(place: number): string {
  const tens = place % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : (({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[place % 10] ?? "th");
  return `${place}${suffix}`;
}
