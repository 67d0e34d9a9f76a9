import { RoomEvent, type Participant, type Room } from "livekit-client";
import { meetingLimits } from "@svc/platform/contract";
import { h } from "../../shared/dom.ts";

/** The server's relay of a reaction (services/meeting/src/room/room-actions.ts ROOM_TOPICS.reaction). */
const REACTION_TOPIC = "svc.reaction";

/** What each reaction is called, for its button and for screen readers. */
const reactionNames: Record<(typeof meetingLimits.reactions)[number], string> = {
  "👍": "Thumbs up",
  "👏": "Clapping",
  "😂": "Laughing",
  "😮": "Surprised",
  "❤️": "Heart",
  "🎉": "Celebrating",
};
export const reactionName = (emoji: string) => reactionNames[emoji as keyof typeof reactionNames] ?? emoji;

/**
 * The reactions picker: a row of the fixed set of emoji above the control bar, opened by the
 * React control (which says whether it is open: `aria-expanded`). It stays open for another
 * reaction, as in Meet; Escape or a click elsewhere closes it.
 */
export function createReactionPicker(opener: HTMLButtonElement, send: (emoji: string) => void) {
  const element = h(
    "div",
    { id: "reaction-picker", class: "reaction-picker", role: "group", "aria-label": "Reactions", hidden: true },
    ...meetingLimits.reactions.map((emoji) =>
      h(
        "button",
        { type: "button", class: "reaction-choice", "aria-label": reactionName(emoji), title: reactionName(emoji), onclick: () => send(emoji) },
        emoji,
      ),
    ),
  );
  const setOpen = (open: boolean) => {
    element.hidden = !open;
    opener.setAttribute("aria-expanded", String(open));
    if (open) element.querySelector("button")?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== "Escape" || element.hidden) return;
    setOpen(false);
    opener.focus();
  };
  const onPointerDown = (event: PointerEvent) => {
    if (!element.hidden && !element.contains(event.target as Node) && !opener.contains(event.target as Node)) setOpen(false);
  };
  document.addEventListener("keydown", onKeyDown);
  document.addEventListener("pointerdown", onPointerDown);
  return {
    element,
    toggle: () => setOpen(element.hidden),
    dispose() {
      document.removeEventListener("keydown", onKeyDown);
      document.removeEventListener("pointerdown", onPointerDown);
    },
  };
}

/** Calls `show` for each reaction the server relays (never one a peer sent: peers cannot send data). */
export function listenForReactions(room: Room, show: (participantId: string, emoji: string) => void) {
  const decoder = new TextDecoder();
  const onData = (payload: Uint8Array, participant?: Participant, _kind?: unknown, topic?: string) => {
    if (participant || topic !== REACTION_TOPIC) return;
    try {
      const reaction = JSON.parse(decoder.decode(payload)) as { participantId?: unknown; emoji?: unknown };
      const known: readonly string[] = meetingLimits.reactions;
      if (typeof reaction.participantId === "string" && typeof reaction.emoji === "string" && known.includes(reaction.emoji))
        show(reaction.participantId, reaction.emoji);
    } catch {
      // not a reaction of ours
    }
  };
  room.on(RoomEvent.DataReceived, onData);
  return { dispose: () => room.off(RoomEvent.DataReceived, onData) };
}
