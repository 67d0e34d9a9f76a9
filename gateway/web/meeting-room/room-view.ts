import { RoomEvent, Track, type DisconnectReason, type RemoteParticipant, type RemoteTrack } from "livekit-client";
import { confirmAction } from "../shared/confirm-dialog.ts";
import { createAnnouncer, h, icon } from "../shared/dom.ts";
import { iconPaths } from "./icons.ts";
import type { JoinedSession, Navigation } from "./meeting.ts";
import { displayNameOf } from "./participant-tile.ts";
import { createDeviceSettings } from "./room/device-settings.ts";
import { createParticipantStage } from "./room/participant-stage.ts";
import { createRemoteAudio } from "./room/remote-audio.ts";
import { controlProblem, createRoomControls, type Control } from "./room/room-controls.ts";
import { watchRole } from "./room/role-watch.ts";
import { listenForShortcuts } from "./room/shortcuts.ts";
import { outcomeOf } from "./room/room-outcome.ts";
import { roomApi } from "./room-api.ts";
import { mountSidePanel } from "./side-panel.ts";

export { gridSize } from "./room/participant-stage.ts";

/**
 * The meeting itself: the stage (participant tiles and shared screens, room/participant-stage.ts),
 * the control bar (room/room-controls.ts) with the device settings (room/device-settings.ts), the
 * keyboard shortcuts (room/shortcuts.ts) and the other people's audio (room/remote-audio.ts), kept
 * in line with the LiveKit room's events. Announces joins and leaves in a live region. Ends by
 * telling `navigation` why (left, ended, removed, disconnected).
 */
export function mountRoom(container: HTMLElement, session: JoinedSession, navigation: Navigation): () => void {
  const { room } = session;
  const local = room.localParticipant;
  let disposed = false;
  const pending = new Set<Control>();

  const announcer = createAnnouncer();
  const stage = createParticipantStage();
  const audio = createRemoteAudio();
  const announce = (text: string) => announcer.announce(text);
  const settings = createDeviceSettings(room, announce);
  const controls = createRoomControls({
    onToggle: (control) => void toggle(control),
    onSettings: () => settings.open(),
    onLeave: () => void room.disconnect(),
  });
  const keyboard = roomKeyboard(room, (control) => void toggle(control));
  const banner = h("p", { class: "banner", role: "status" });
  const count = h("p", { class: "room-count" });
  const problem = h("p", { class: "room-problem", role: "alert" });
  const startAudio = h("button", { type: "button", class: "button secondary start-audio", hidden: true }, "Turn on sound");

  // People (host actions for hosts), the lobby queue for hosts, and the chat (side-panel.ts).
  let panel = mountSidePanel(room, session.grant, announce);
  const section = h(
    "section",
    { class: "room with-panel", "aria-labelledby": "view-heading" },
    h("h2", { id: "view-heading", class: "visually-hidden", tabindex: "-1" }, "Meeting room"),
    banner,
    panel.recording.element,
    panel.recording.notice,
    h("div", { class: "room-main" }, stage.element, panel.element),
    h("div", { class: "room-bar" }, count, controls.element, h("div", { class: "room-bar-end" }, startAudio, keyboard.button)),
    problem,
    announcer.element,
    audio.element,
  );
  container.replaceChildren(section);

  // The role follows the invitation live (room/role-watch.ts): the panel is rebuilt for the new
  // role, so a demoted host's controls disappear without a reload.
  const roleWatch = watchRole(room, roomApi(session.grant.meeting.id, session.grant.roomSession), session.grant.role, {
    changed(role) {
      const next = mountSidePanel(room, { ...session.grant, role }, announce);
      panel.element.replaceWith(next.element);
      panel.recording.element.replaceWith(next.recording.element);
      panel.recording.notice.replaceWith(next.recording.notice);
      panel.dispose();
      panel = next;
      announce(role === "host" ? "You are now a host of this meeting." : "You are no longer a host of this meeting.");
    },
    refused: (message) => navigation.outcome({ kind: "refused", status: 403, message }),
  });

  /** Brings the stage, the controls and the count in line with the room; cheap enough to run on every event. */
  function sync() {
    if (disposed) return;
    const present = stage.sync([local, ...room.remoteParticipants.values()], local);
    count.textContent = present === 1 ? "Only you are here" : `${present} people in the meeting`;
    controls.update({ microphone: local.isMicrophoneEnabled, camera: local.isCameraEnabled, screen: local.isScreenShareEnabled }, pending);
  }

  function showProblem(text: string) {
    problem.textContent = text;
    window.setTimeout(() => {
      if (problem.textContent === text) problem.textContent = "";
    }, 8_000);
  }

  async function toggle(control: Control) {
    if (pending.has(control)) return;
    pending.add(control);
    sync();
    try {
      if (control === "microphone") await local.setMicrophoneEnabled(!local.isMicrophoneEnabled);
      else if (control === "camera") await local.setCameraEnabled(!local.isCameraEnabled);
      else await local.setScreenShareEnabled(!local.isScreenShareEnabled, { audio: false, selfBrowserSurface: "exclude" });
    } catch (error) {
      const text = controlProblem(control, error);
      if (text) showProblem(text);
    } finally {
      pending.delete(control);
      sync();
    }
  }

  const { listeners, onTrackSubscribed } = roomListeners({ announcer, audio, banner, section, startAudio, sync, room, isDisposed: () => disposed, navigation });
  for (const [event, listener] of listeners) room.on(event, listener as never);
  startAudio.addEventListener("click", () => void room.startAudio().then(() => (startAudio.hidden = room.canPlaybackAudio)));

  // Audio of people who were already there when we connected.
  for (const participant of room.remoteParticipants.values()) {
    for (const publication of participant.trackPublications.values()) {
      if (publication.track) onTrackSubscribed(publication.track, publication, participant);
    }
  }
  sync();
  startAudio.hidden = room.canPlaybackAudio;
  navigation.setStatus("live");
  const others = room.remoteParticipants.size;
  announcer.announce(others === 0 ? "You joined. Nobody else is here yet." : `You joined. ${others + 1} people are in the meeting.`);
  publishPreviewedTracks(session, pending, showProblem, sync);

  return () => {
    keyboard.dispose();
    settings.dispose();
    roleWatch.dispose();
    panel.dispose();
    disposed = true;
    for (const [event, listener] of listeners) room.off(event, listener as never);
    stage.destroy();
    audio.destroy();
    if (room.state !== "disconnected") void room.disconnect();
  };
}

/**
 * Ctrl/⌘+D, Ctrl/⌘+E, Alt+Q and ? (room/shortcuts.ts), and the visible button that lists them.
 * Leaving by keyboard asks first: a stray key must not end a call.
 */
function roomKeyboard(room: JoinedSession["room"], toggle: (control: "microphone" | "camera") => void) {
  const shortcuts = listenForShortcuts((action) => {
    if (action === "microphone" || action === "camera") toggle(action);
    else if (action === "leave") void confirmLeave().then(async (leave) => (leave ? room.disconnect() : undefined));
  });
  const button = h(
    "button",
    { type: "button", class: "button secondary small shortcuts-button", "aria-haspopup": "dialog", "aria-keyshortcuts": "?" },
    icon(iconPaths("keyboard")),
    h("span", {}, "Shortcuts"),
  );
  button.addEventListener("click", () => shortcuts.help.open());
  return { button, dispose: () => shortcuts.dispose() };
}

const confirmLeave = () =>
  confirmAction({ title: "Leave the meeting?", message: "You can join again with the meeting's link while it runs.", action: "Leave" });

/** Publishes the previewed tracks as they are (no second permission prompt); their controls are busy meanwhile. */
function publishPreviewedTracks(session: JoinedSession, pending: Set<Control>, showProblem: (text: string) => void, sync: () => void) {
  const controlOf = (kind: Track.Kind): Control => (kind === Track.Kind.Video ? "camera" : "microphone");
  for (const track of session.tracks) pending.add(controlOf(track.kind));
  sync();
  void Promise.all(
    session.tracks.map((track) =>
      session.room.localParticipant
        .publishTrack(track)
        .catch(() => showProblem(`Your ${controlOf(track.kind) === "camera" ? "camera" : "microphone"} could not be shared with the meeting.`))
        .finally(() => pending.delete(controlOf(track.kind))),
    ),
  ).then(sync);
}

/** What the room view does on each LiveKit room event. */
function roomListeners(view: {
  room: JoinedSession["room"];
  announcer: ReturnType<typeof createAnnouncer>;
  audio: ReturnType<typeof createRemoteAudio>;
  banner: HTMLElement;
  section: HTMLElement;
  startAudio: HTMLElement;
  sync: () => void;
  isDisposed: () => boolean;
  navigation: Navigation;
}): {
  listeners: [RoomEvent, (...args: never[]) => void][];
  onTrackSubscribed: (track: RemoteTrack, publication: unknown, participant: RemoteParticipant) => void;
} {
  const { announcer, audio, banner, section, sync } = view;
  const onParticipantConnected = (participant: RemoteParticipant) => {
    announcer.announce(`${displayNameOf(participant)} joined`);
    sync();
  };
  const onParticipantDisconnected = (participant: RemoteParticipant) => {
    announcer.announce(`${displayNameOf(participant)} left`);
    sync();
  };
  const onTrackSubscribed = (track: RemoteTrack, _publication: unknown, participant: RemoteParticipant) => {
    if (track.kind === Track.Kind.Audio) audio.play(track);
    if (track.source === Track.Source.ScreenShare) announcer.announce(`${displayNameOf(participant)} is sharing their screen`);
    sync();
  };
  const onTrackUnsubscribed = (track: RemoteTrack) => {
    audio.stop(track);
    sync();
  };
  const onReconnecting = () => {
    banner.textContent = "Connection lost. Reconnecting…";
    section.dataset.connection = "reconnecting";
  };
  const onReconnected = () => {
    banner.textContent = "";
    delete section.dataset.connection;
    announcer.announce("Reconnected");
  };
  const onDisconnected = (reason?: DisconnectReason) => {
    if (!view.isDisposed()) view.navigation.outcome(outcomeOf(reason));
  };
  const listeners: [RoomEvent, (...args: never[]) => void][] = [
    [RoomEvent.ParticipantConnected, onParticipantConnected],
    [RoomEvent.ParticipantDisconnected, onParticipantDisconnected],
    [RoomEvent.TrackSubscribed, onTrackSubscribed],
    [RoomEvent.TrackUnsubscribed, onTrackUnsubscribed],
    [RoomEvent.TrackPublished, sync],
    [RoomEvent.TrackUnpublished, sync],
    [RoomEvent.TrackMuted, sync],
    [RoomEvent.TrackUnmuted, sync],
    [RoomEvent.LocalTrackPublished, sync],
    [RoomEvent.LocalTrackUnpublished, sync],
    [RoomEvent.ActiveSpeakersChanged, sync],
    [RoomEvent.ParticipantNameChanged, sync],
    [RoomEvent.AudioPlaybackStatusChanged, () => (view.startAudio.hidden = view.room.canPlaybackAudio)],
    [RoomEvent.Reconnecting, onReconnecting],
    [RoomEvent.SignalReconnecting, onReconnecting],
    [RoomEvent.Reconnected, onReconnected],
    [RoomEvent.Disconnected, onDisconnected],
  ];
  return { listeners, onTrackSubscribed };
}
