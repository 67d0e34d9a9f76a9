import type { Participant, Room } from "livekit-client";
import { h, icon } from "../../shared/dom.ts";
import { iconPaths } from "../icons.ts";
import { displayNameOf } from "../participant-tile.ts";
import type { RoomApi } from "../room-api.ts";
import { handRaisedAt, raisedHands } from "./hands.ts";
import type { ParticipantStage, StageLayout } from "./participant-stage.ts";
import { createReactionPicker, listenForReactions, reactionName } from "./reactions.ts";
import { createViewState, featuredPerson, spotlightOf } from "./stage-layout.ts";

/**
 * The room's ways of being together beyond sound and picture: one's raised hand (through the
 * server), reactions (the picker and the server's relays), and the view of the stage (grid or
 * speaker view, pins, a host's spotlight, whoever spoke last). The room view wires it to its
 * controls and asks it for the stage's layout on every sync.
 */
export function createTogether(deps: {
  room: Room;
  api: RoomApi;
  stage: ParticipantStage;
  announce: (text: string) => void;
  showProblem: (text: string) => void;
}) {
  const { room, api, stage, announce, showProblem } = deps;
  const local = room.localParticipant;
  const view = createViewState();
  const viewButton = h(
    "button",
    { type: "button", class: "button secondary small view-button", "aria-pressed": "false" },
    icon(iconPaths("speaker")),
    h("span", {}, "Speaker view"),
  );
  viewButton.addEventListener("click", () => view.setMode(view.mode === "grid" ? "speaker" : "grid"));

  /** The remote person who spoke last: kept until someone else speaks while they do not (no flicker between two voices). */
  let lastSpeaker: string | undefined;
  let picker: ReturnType<typeof createReactionPicker> | undefined;
  const participantById = (identity: string) => (identity === local.identity ? local : room.remoteParticipants.get(identity));
  const reactions = listenForReactions(room, (identity, emoji) => {
    const participant = participantById(identity);
    if (!participant || !stage.react(identity, emoji)) return;
    announce(`${participant === local ? "You" : displayNameOf(participant)} reacted: ${reactionName(emoji)}`);
  });

  return {
    view,
    viewButton,
    /** The reactions picker, opened by `opener` (the control bar's React). */
    pickerFor(opener: HTMLButtonElement): HTMLElement {
      picker = createReactionPicker(
        opener,
        (emoji) =>
          void api.react(emoji).then((answer) => {
            if (!answer.ok) showProblem(answer.error);
          }),
      );
      return picker.element;
    },
    togglePicker: () => picker?.toggle(),
    followSpeakers() {
      const speaking = room.activeSpeakers.filter((participant) => participant !== local).map((participant) => participant.identity);
      if (speaking.length > 0 && !(lastSpeaker && speaking.includes(lastSpeaker))) lastSpeaker = speaking[0];
    },
    handRaised: () => handRaisedAt(local) !== undefined,
    /** Raises or lowers one's hand through the server, which sets the `hand` attribute everyone sees. */
    async toggleHand() {
      const raise = handRaisedAt(local) === undefined;
      const answer = await api.hand("self", raise);
      if (!answer.ok) showProblem(answer.error);
      else announce(raise ? "Your hand is raised." : "Your hand is lowered.");
    },
    /** Who is large and who has a hand up, for the stage. */
    layout(everyone: Participant[]): StageLayout {
      viewButton.setAttribute("aria-pressed", String(view.mode === "speaker"));
      const featured = featuredPerson({
        mode: view.mode,
        spotlight: spotlightOf(room.metadata),
        pinned: view.pinned,
        lastSpeaker,
        present: everyone.map((participant) => participant.identity),
      });
      return { featured, hands: raisedHands(everyone) };
    },
    dispose() {
      reactions.dispose();
      picker?.dispose();
    },
  };
}
