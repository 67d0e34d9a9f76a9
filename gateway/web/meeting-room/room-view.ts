import { RoomEvent, Track, type DisconnectReason, type RemoteParticipant, type RemoteTrack } from "livekit-client";
import { confirmAction } from "../shared/confirm-dialog.ts";
import { createAnnouncer, h, icon } from "../shared/dom.ts";
import { iconPaths } from "./icons.ts";
import type { JoinedSession, Navigation } from "./meeting.ts";
import { displayNameOf } from "./participant-tile.ts";
import { createConnectionBanner } from "./room/connection-banner.ts";
import { createDeviceSettings } from "./room/device-settings.ts";
import { createParticipantStage } from "./room/participant-stage.ts";
import { createRemoteAudio } from "./room/remote-audio.ts";
import { controlProblem, createRoomControls, type Control } from "./room/room-controls.ts";
import { watchRole } from "./room/role-watch.ts";
import { createTogether } from "./room/together.ts";
import { togetherAnnouncements } from "./room/together-announcements.ts";
import { listenForShortcuts } from "./room/shortcuts.ts";
import { settledOutcome } from "./room/room-outcome.ts";
import { roomApi, type RoomCall } from "./room-api.ts";
import { mountSidePanel } from "./side-panel.ts";

export { gridSize } from "./room/participant-stage.ts";

/**
 * The meeting itself: the stage (participant tiles and shared screens, room/participant-stage.ts;
 * grid or speaker view, pins and a host's spotlight, room/stage-layout.ts), the control bar
 * (room/room-controls.ts) with the device settings (room/device-settings.ts), raised hands
 * (room/hands.ts) and reactions (room/reactions.ts), the keyboard shortcuts (room/shortcuts.ts),
 * the own connection's warning (room/connection-banner.ts) and the other people's audio
 * (room/remote-audio.ts), kept in line with the LiveKit room's events. Announces joins, leaves,
 * hands and reactions in a live region. Ends by telling `navigation` why (left, ended, removed,
 * disconnected).
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
  const api = roomApi(session.grant.meeting.id, session.grant.roomSession);
  const together = createTogether({ room, api, stage, announce, showProblem: (text) => showProblem(text) });
  const { view, viewButton } = together;
  const controls = createRoomControls({
    onToggle: (control) => void toggle(control),
    onHand: () => void together.toggleHand(),
    onReact: () => together.togglePicker(),
    onSettings: () => settings.open(),
    onLeave: () => void room.disconnect(),
  });
  const keyboard = roomKeyboard(room, (action) => (action === "hand" ? void together.toggleHand() : void toggle(action)));
  const qualityBanner = createConnectionBanner(room, () => void (local.isCameraEnabled ? toggle("camera") : undefined));
  const banner = h("p", { class: "banner", role: "status" });
  const count = h("p", { class: "room-count" });
  const problem = h("p", { class: "room-problem", role: "alert" });
  const startAudio = h("button", { type: "button", class: "button secondary start-audio", hidden: true }, "Turn on sound");

  // People (host actions for hosts), the lobby queue for hosts, and the chat (side-panel.ts).
  let panel = mountSidePanel(room, session.grant, announce, view);
  const section = h(
    "section",
    { class: "room with-panel", "aria-labelledby": "view-heading" },
    h("h2", { id: "view-heading", class: "visually-hidden", tabindex: "-1" }, "Meeting room"),
    banner,
    qualityBanner.element,
    panel.recording.element,
    panel.recording.notice,
    h("div", { class: "room-main" }, stage.element, panel.element),
    h("div", { class: "room-bar" }, count, controls.element, h("div", { class: "room-bar-end" }, startAudio, viewButton, keyboard.button)),
    together.pickerFor(controls.reactButton),
    problem,
    announcer.element,
    audio.element,
  );
  container.replaceChildren(section);

  const roleWatch = followRole({ room, api, session, navigation, announce, view, panel: () => panel, replace: (next) => (panel = next) });

  /** Brings the stage, the controls and the count in line with the room; cheap enough to run on every event. */
  function sync() {
    if (disposed) return;
    const everyone = [local, ...room.remoteParticipants.values()];
    const present = stage.sync(everyone, local, together.layout(everyone));
    count.textContent = present === 1 ? "Only you are here" : `${present} people in the meeting`;
    controls.update({ microphone: local.isMicrophoneEnabled, camera: local.isCameraEnabled, screen: local.isScreenShareEnabled }, pending);
    controls.showHand(together.handRaised());
  }
  const unsubscribeView = view.subscribe(sync);

  const showProblem = (text: string) => showBriefly(problem, text);

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

  const { listeners, onTrackSubscribed } = roomListeners({
    announcer,
    audio,
    banner,
    section,
    startAudio,
    sync,
    followSpeakers: together.followSpeakers,
    room,
    isDisposed: () => disposed,
    navigation,
    askSelf: api.self,
  });
  for (const [event, listener] of listeners) room.on(event, listener as never);
  startAudio.addEventListener("click", () => void room.startAudio().then(() => (startAudio.hidden = room.canPlaybackAudio)));

  // Audio of people who were already there when we connected.
  for (const participant of room.remoteParticipants.values())
    for (const publication of participant.trackPublications.values()) if (publication.track) onTrackSubscribed(publication.track, publication, participant);
  sync();
  startAudio.hidden = room.canPlaybackAudio;
  navigation.setStatus("live");
  const others = room.remoteParticipants.size;
  announcer.announce(others === 0 ? "You joined. Nobody else is here yet." : `You joined. ${others + 1} people are in the meeting.`);
  publishPreviewedTracks(session, pending, showProblem, sync);

  return () => {
    unsubscribeView();
    together.dispose();
    qualityBanner.dispose();
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

/** Shows `text` in `element` for eight seconds (unless something else is shown meanwhile). */
function showBriefly(element: HTMLElement, text: string) {
  element.textContent = text;
  window.setTimeout(() => {
    if (element.textContent === text) element.textContent = "";
  }, 8_000);
}

/**
 * The role follows the invitation live (room/role-watch.ts): the side panel is rebuilt for the new
 * role, so a promoted co-host's host controls appear, and a demoted host's disappear, without a reload.
 */
function followRole(deps: {
  room: JoinedSession["room"];
  api: ReturnType<typeof roomApi>;
  session: JoinedSession;
  navigation: Navigation;
  announce: (text: string) => void;
  view: Parameters<typeof mountSidePanel>[3];
  panel: () => ReturnType<typeof mountSidePanel>;
  replace: (next: ReturnType<typeof mountSidePanel>) => void;
}) {
  const { room, session, announce } = deps;
  return watchRole(room, deps.api, session.grant.role, {
    changed(role) {
      const panel = deps.panel();
      const next = mountSidePanel(room, { ...session.grant, role }, announce, deps.view);
      panel.element.replaceWith(next.element);
      panel.recording.element.replaceWith(next.recording.element);
      panel.recording.notice.replaceWith(next.recording.notice);
      panel.dispose();
      deps.replace(next);
      announce(role === "host" ? "You are now a host of this meeting." : "You are no longer a host of this meeting.");
    },
    refused: (message) => deps.navigation.outcome({ kind: "refused", status: 403, message }),
  });
}

/**
 * Ctrl/⌘+D, Ctrl/⌘+E, Alt+Y, Alt+Q and ? (room/shortcuts.ts), and the visible button that lists them.
 * Leaving by keyboard asks first: a stray key must not end a call.
 */
function roomKeyboard(room: JoinedSession["room"], toggle: (action: "microphone" | "camera" | "hand") => void) {
  const shortcuts = listenForShortcuts((action) => {
    if (action === "microphone" || action === "camera" || action === "hand") toggle(action);
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
  followSpeakers: () => void;
  isDisposed: () => boolean;
  navigation: Navigation;
  /** The room API's view of this person (GET …/room/self), asked when the media server's reason is not certain. */
  askSelf: () => Promise<RoomCall<unknown>>;
}): {
  listeners: [RoomEvent, (...args: never[]) => void][];
  onTrackSubscribed: (track: RemoteTrack, publication: unknown, participant: RemoteParticipant) => void;
} {
  const { announcer, audio, banner, section, sync } = view;
  const together = togetherAnnouncements(view.room, (text) => announcer.announce(text), sync);
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
    if (view.isDisposed()) return;
    void settledOutcome(reason, view.askSelf).then((outcome) => {
      if (!view.isDisposed()) view.navigation.outcome(outcome);
    });
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
    [
      RoomEvent.ActiveSpeakersChanged,
      () => {
        view.followSpeakers();
        sync();
      },
    ],
    [RoomEvent.ParticipantAttributesChanged, together.onAttributesChanged],
    [RoomEvent.RoomMetadataChanged, together.onMetadataChanged],
    [RoomEvent.ConnectionQualityChanged, sync],
    [RoomEvent.ParticipantNameChanged, sync],
    [RoomEvent.AudioPlaybackStatusChanged, () => (view.startAudio.hidden = view.room.canPlaybackAudio)],
    [RoomEvent.Reconnecting, onReconnecting],
    [RoomEvent.SignalReconnecting, onReconnecting],
    [RoomEvent.Reconnected, onReconnected],
    [RoomEvent.Disconnected, onDisconnected],
  ];
  return { listeners, onTrackSubscribed };
}
