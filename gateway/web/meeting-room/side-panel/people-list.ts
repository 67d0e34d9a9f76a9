import { RoomEvent, type Participant, type Room } from "livekit-client";
import { confirmAction } from "../../shared/confirm-dialog.ts";
import { h, icon } from "../../shared/dom.ts";
import { iconPaths } from "../icons.ts";
import { displayNameOf } from "../participant-tile.ts";
import type { RoomApi } from "../room-api.ts";
import { raisedHands } from "../room/hands.ts";
import type { ViewState } from "../room/stage-layout.ts";
import { personExtras, roleOf } from "./person-extras.ts";
import { rerender, type PanelFeedback } from "./panel-tools.ts";

const roleLabel: Record<string, string> = { host: "Host", attendee: "Attendee", guest: "Guest" };

/** The room events after which the list may have changed (people, tracks, roles). */
const refreshEvents = [
  RoomEvent.ParticipantConnected,
  RoomEvent.ParticipantDisconnected,
  RoomEvent.TrackMuted,
  RoomEvent.TrackUnmuted,
  RoomEvent.TrackPublished,
  RoomEvent.TrackUnpublished,
  RoomEvent.LocalTrackPublished,
  RoomEvent.LocalTrackUnpublished,
  RoomEvent.ParticipantAttributesChanged,
  RoomEvent.RoomMetadataChanged,
] as const;

/**
 * The people in the room: raised hands first, in the order raised, then everyone else; each with
 * name, role, hand and microphone state. For a host, the actions on each other person (mute, stop
 * camera or screen share, remove), which the server authorizes. Everyone has a "More" menu per
 * person: pin them for oneself, and for a host, spotlight them for everyone, make them a host or
 * take it back, lower their hand.
 */
export function createPeopleList(room: Room, api: RoomApi, isHost: boolean, feedback: PanelFeedback, view: ViewState) {
  let disposed = false;
  const list = h("ul", { class: "people", "aria-label": "People in the meeting" });
  const heading = h("h3", { id: "people-heading" }, "People");
  const element = h("section", { class: "panel-section people-section", "aria-labelledby": "people-heading" }, heading, list);

  function hostActions(participant: Participant) {
    const name = displayNameOf(participant);
    // Icons on the person's own line, each with its word as a tooltip and an accessible name that
    // says whom (three word-sized buttons took each person a second line in the panel).
    const button = (label: string, accessibleName: string, paths: string[], run: () => void, tone = "") =>
      h("button", { type: "button", class: `button small icon-only ${tone}`, "aria-label": accessibleName, title: label, onclick: run }, icon(paths));
    const mute = (source: "microphone" | "camera" | "screen_share", done: string) => () => void feedback.act(done, api.mute(participant.identity, source));
    // Removing is for good (the person cannot come back with the same link): asked first.
    const remove = async () => {
      const confirmed = await confirmAction({
        title: `Remove ${name}?`,
        message: `${name} leaves the meeting at once and cannot rejoin it from this browser or with the same link.`,
        action: "Remove",
      });
      if (confirmed) await feedback.act(`Removed ${name}.`, api.remove(participant.identity));
    };
    return h(
      "div",
      { class: "person-actions", role: "group", "aria-label": `Actions for ${name}` },
      participant.isMicrophoneEnabled ? button("Mute", `Mute ${name}`, iconPaths("microphone", true), mute("microphone", `Muted ${name}.`)) : null,
      participant.isCameraEnabled
        ? button("Stop camera", `Stop camera of ${name}`, iconPaths("camera", true), mute("camera", `Stopped ${name}'s camera.`))
        : null,
      participant.isScreenShareEnabled
        ? button("Stop sharing", `Stop sharing of ${name}`, iconPaths("screen", true), mute("screen_share", `Stopped ${name}'s screen share.`))
        : null,
      button("Remove", `Remove ${name}`, iconPaths("removePerson"), () => void remove(), "remove"),
    );
  }

  function personItem(participant: Participant, handPlace: number | undefined) {
    const local = participant === room.localParticipant;
    const microphoneOn = participant.isMicrophoneEnabled;
    const microphoneLabel = microphoneOn ? "Microphone on" : "Microphone off";
    return h(
      "li",
      { class: "person", "data-identity": participant.identity },
      h(
        "p",
        { class: "person-line" },
        h("span", { class: "person-name" }, `${displayNameOf(participant)}${local ? " (you)" : ""}`),
        h("span", { class: `role role-${roleOf(participant)}` }, roleLabel[roleOf(participant)] ?? "Guest"),
        handPlace === undefined ? null : extras.handBadge(participant, handPlace, local),
        // An icon, as on the tiles (a word-sized pill took each person a second line in the panel).
        h(
          "span",
          { class: `mic ${microphoneOn ? "mic-on" : "mic-off"}`, role: "img", "aria-label": microphoneLabel, title: microphoneLabel },
          icon(iconPaths("microphone", !microphoneOn)),
        ),
      ),
      ...personActions(participant, local),
    );
  }

  /** The person's action icons at the end of their line (a host's, then More), and More's menu below the line when open. */
  function personActions(participant: Participant, local: boolean) {
    // None on one's own line (pinning or spotlighting oneself helps nobody), which keeps it one text line high.
    if (local) return [];
    const more = extras.moreMenu(participant, local);
    const actions = isHost
      ? hostActions(participant)
      : h("div", { class: "person-actions", role: "group", "aria-label": `Actions for ${displayNameOf(participant)}` });
    actions.append(more.toggle);
    return [actions, more.menu];
  }

  function render() {
    if (disposed) return;
    const everyone: Participant[] = [room.localParticipant, ...room.remoteParticipants.values()];
    heading.textContent = `People (${everyone.length})`;
    const hands = raisedHands(everyone);
    const place = (participant: Participant) => hands.indexOf(participant.identity);
    const inOrder = [
      ...everyone.filter((participant) => place(participant) >= 0).sort((a, b) => place(a) - place(b)),
      ...everyone.filter((participant) => place(participant) < 0),
    ];
    rerender(
      list,
      inOrder.map((participant) => personItem(participant, place(participant) >= 0 ? place(participant) + 1 : undefined)),
    );
  }

  const extras = personExtras({ room, api, isHost, feedback, view, render: () => render() });
  for (const event of refreshEvents) room.on(event, render);
  const unsubscribe = view.subscribe(render);
  render();
  return {
    element,
    dispose() {
      disposed = true;
      unsubscribe();
      for (const event of refreshEvents) room.off(event, render);
    },
  };
}
