import { RoomEvent, type Participant, type Room } from "livekit-client";
import { confirmAction } from "../../shared/confirm-dialog.ts";
import { h, icon } from "../../shared/dom.ts";
import { iconPaths } from "../icons.ts";
import { displayNameOf } from "../participant-tile.ts";
import type { RoomApi } from "../room-api.ts";
import { rerender, type PanelFeedback } from "./panel-tools.ts";

const roleOf = (participant: Participant) => participant.attributes.role ?? "guest";
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
] as const;

/**
 * The people in the room: name, role and microphone state, and for a host the actions on each
 * other person (mute, stop camera or screen share, remove), which the server authorizes.
 */
export function createPeopleList(room: Room, api: RoomApi, isHost: boolean, feedback: PanelFeedback) {
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

  function personItem(participant: Participant) {
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
        // An icon, as on the tiles (a word-sized pill took each person a second line in the panel).
        h(
          "span",
          { class: `mic ${microphoneOn ? "mic-on" : "mic-off"}`, role: "img", "aria-label": microphoneLabel, title: microphoneLabel },
          icon(iconPaths("microphone", !microphoneOn)),
        ),
      ),
      isHost && !local ? hostActions(participant) : null,
    );
  }

  function render() {
    if (disposed) return;
    const everyone: Participant[] = [room.localParticipant, ...room.remoteParticipants.values()];
    heading.textContent = `People (${everyone.length})`;
    rerender(list, everyone.map(personItem));
  }

  for (const event of refreshEvents) room.on(event, render);
  render();
  return {
    element,
    dispose() {
      disposed = true;
      for (const event of refreshEvents) room.off(event, render);
    },
  };
}
