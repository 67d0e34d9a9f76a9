import { DisconnectReason, MediaDeviceFailure, RoomEvent, Track, type Participant, type RemoteParticipant, type RemoteTrack } from "livekit-client";
import { createAnnouncer, h, icon, setAttributes } from "../shared/dom.ts";
import { iconPaths } from "./icons.ts";
import type { JoinedSession, Navigation, Outcome } from "./meeting.ts";
import { displayNameOf, ParticipantTile, ScreenTile } from "./participant-tile.ts";
import { mountSidePanel } from "./side-panel.ts";

/** Grid shapes by head count: 1, 2, 3-4 (2×2), 5-9 (3×3), more (4 columns, scrolling). */
export function gridSize(count: number): string {
  if (count <= 1) return "1";
  if (count === 2) return "2";
  if (count <= 4) return "4";
  if (count <= 9) return "9";
  return "many";
}

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
      return { kind: "disconnected", detail: "The connection to the meeting was lost and could not be restored." };
  }
}

type Control = "microphone" | "camera" | "screen";

/**
 * The meeting itself: a grid of participant tiles that adapts to the head count, shared screens
 * as large tiles, and the controls (microphone, camera, screen share, leave). Announces joins and
 * leaves in a live region. Ends by telling `navigation` why (left, ended, removed, disconnected).
 */
export function mountRoom(container: HTMLElement, session: JoinedSession, navigation: Navigation): () => void {
  const { room } = session;
  const local = room.localParticipant;
  let disposed = false;
  const tiles = new Map<string, ParticipantTile>();
  const screens = new Map<string, ScreenTile>();
  const audio = new Map<RemoteTrack, HTMLMediaElement>();
  const pending = new Set<Control>();

  const announcer = createAnnouncer();
  const grid = h("ul", { class: "grid", "aria-label": "Participants" });
  const screenArea = h("div", { class: "screens" });
  const stage = h("div", { class: "stage" }, screenArea, grid);
  const banner = h("p", { class: "banner", role: "status" });
  const count = h("p", { class: "room-count" });
  const problem = h("p", { class: "room-problem", role: "alert" });
  const audioSink = h("div", { class: "audio-sink", hidden: true });
  const startAudio = h("button", { type: "button", class: "button secondary start-audio", hidden: true }, "Turn on sound");

  const controlButton = (control: Control, label: string) => {
    const button = h(
      "button",
      { type: "button", class: `control control-${control}`, "aria-pressed": "false" },
      h("span", { class: "control-icon" }),
      h("span", { class: "control-label" }, label),
    );
    button.addEventListener("click", () => void toggle(control));
    return button;
  };
  const controls = {
    microphone: controlButton("microphone", "Microphone"),
    camera: controlButton("camera", "Camera"),
    screen: controlButton("screen", "Share screen"),
  };
  const leave = h(
    "button",
    { type: "button", class: "control control-leave" },
    h("span", { class: "control-icon" }, icon(iconPaths("leave"))),
    h("span", { class: "control-label" }, "Leave"),
  );
  // Browsers without screen capture (most phones) get no button for it.
  const canShareScreen = typeof navigator.mediaDevices?.getDisplayMedia === "function";

  // People (host actions for hosts), the lobby queue for hosts, and the chat.
  const panel = mountSidePanel(room, session.grant, (text) => announcer.announce(text));
  const section = h(
    "section",
    { class: "room with-panel", "aria-labelledby": "view-heading" },
    h("h2", { id: "view-heading", class: "visually-hidden", tabindex: "-1" }, "Meeting room"),
    banner,
    h("div", { class: "room-main" }, stage, panel.element),
    h(
      "div",
      { class: "room-bar" },
      count,
      h(
        "div",
        { class: "controls", role: "group", "aria-label": "Meeting controls" },
        controls.microphone,
        controls.camera,
        canShareScreen ? controls.screen : null,
        leave,
      ),
      h("div", { class: "room-bar-end" }, startAudio),
    ),
    problem,
    announcer.element,
    audioSink,
  );
  container.replaceChildren(section);

  function participants(): Participant[] {
    return [local, ...room.remoteParticipants.values()];
  }

  /** Brings tiles, screens, controls and counts in line with the room; cheap enough to run on every event. */
  function sync() {
    if (disposed) return;
    const present = new Set<string>();
    for (const participant of participants()) {
      present.add(participant.identity);
      let tile = tiles.get(participant.identity);
      if (!tile) {
        tile = new ParticipantTile(participant, participant === local);
        tiles.set(participant.identity, tile);
        grid.appendChild(tile.element);
      }
      tile.update();

      let screen = screens.get(participant.identity);
      const sharing = participant.getTrackPublication(Track.Source.ScreenShare);
      if (sharing && !screen) {
        screen = new ScreenTile(participant, participant === local);
        screens.set(participant.identity, screen);
        screenArea.appendChild(screen.element);
      }
      if (screen && !screen.update()) {
        screen.destroy();
        screens.delete(participant.identity);
      }
    }
    for (const [identity, tile] of tiles) {
      if (!present.has(identity)) {
        tile.destroy();
        tiles.delete(identity);
      }
    }
    for (const [identity, screen] of screens) {
      if (!present.has(identity)) {
        screen.destroy();
        screens.delete(identity);
      }
    }
    grid.dataset.size = gridSize(tiles.size);
    setRows();
    stage.dataset.layout = screens.size > 0 ? "screen" : "grid";
    count.textContent = tiles.size === 1 ? "Only you are here" : `${tiles.size} people in the meeting`;

    const state: Record<Control, boolean> = {
      microphone: local.isMicrophoneEnabled,
      camera: local.isCameraEnabled,
      screen: local.isScreenShareEnabled,
    };
    for (const control of ["microphone", "camera", "screen"] as const) {
      const button = controls[control];
      const on = state[control];
      const iconName = control === "screen" ? "screen" : control;
      button.querySelector(".control-icon")!.replaceChildren(icon(iconPaths(iconName, control !== "screen" && !on)));
      setAttributes(button, { "aria-pressed": on ? "true" : "false", "aria-busy": pending.has(control) ? "true" : null });
    }
  }

  /** Rows follow from the columns the style sheet chose for this size and screen width. */
  function setRows() {
    const columns = Number(getComputedStyle(grid).getPropertyValue("--cols")) || 1;
    grid.style.setProperty("--rows", String(Math.max(1, Math.ceil(tiles.size / columns))));
  }
  const resizes = new ResizeObserver(setRows);
  resizes.observe(grid);

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
      const failure = MediaDeviceFailure.getFailure(error);
      const what = control === "microphone" ? "microphone" : control === "camera" ? "camera" : "screen sharing";
      // Cancelling the screen picker is a choice, not a problem.
      if (control === "screen" && failure === MediaDeviceFailure.PermissionDenied) {
        // nothing to say
      } else if (failure === MediaDeviceFailure.PermissionDenied) {
        showProblem(`Your browser blocked the ${what}. Allow it for this site in the browser's settings, then try again.`);
      } else if (failure === MediaDeviceFailure.NotFound) {
        showProblem(`No ${what} was found.`);
      } else if (failure === MediaDeviceFailure.DeviceInUse) {
        showProblem(`The ${what} is in use by another application.`);
      } else {
        showProblem(`The ${what} could not be started.`);
      }
    } finally {
      pending.delete(control);
      sync();
    }
  }

  function onParticipantConnected(participant: RemoteParticipant) {
    announcer.announce(`${displayNameOf(participant)} joined`);
    sync();
  }
  function onParticipantDisconnected(participant: RemoteParticipant) {
    announcer.announce(`${displayNameOf(participant)} left`);
    sync();
  }
  function onTrackSubscribed(track: RemoteTrack, _publication: unknown, participant: RemoteParticipant) {
    if (track.kind === Track.Kind.Audio) {
      const element = track.attach();
      audio.set(track, element);
      audioSink.appendChild(element);
    }
    if (track.source === Track.Source.ScreenShare) announcer.announce(`${displayNameOf(participant)} is sharing their screen`);
    sync();
  }
  function onTrackUnsubscribed(track: RemoteTrack) {
    const element = audio.get(track);
    if (element) {
      track.detach(element);
      element.remove();
      audio.delete(track);
    }
    sync();
  }
  function onAudioPlaybackChanged() {
    startAudio.hidden = room.canPlaybackAudio;
  }
  function onReconnecting() {
    banner.textContent = "Connection lost. Reconnecting…";
    section.dataset.connection = "reconnecting";
  }
  function onReconnected() {
    banner.textContent = "";
    delete section.dataset.connection;
    announcer.announce("Reconnected");
  }
  function onDisconnected(reason?: DisconnectReason) {
    if (disposed) return;
    navigation.outcome(outcomeOf(reason));
  }

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
    [RoomEvent.AudioPlaybackStatusChanged, onAudioPlaybackChanged],
    [RoomEvent.Reconnecting, onReconnecting],
    [RoomEvent.SignalReconnecting, onReconnecting],
    [RoomEvent.Reconnected, onReconnected],
    [RoomEvent.Disconnected, onDisconnected],
  ];
  for (const [event, listener] of listeners) room.on(event, listener as never);

  leave.addEventListener("click", () => void room.disconnect());
  startAudio.addEventListener("click", () => void room.startAudio().then(onAudioPlaybackChanged));

  // Audio of people who were already there when we connected.
  for (const participant of room.remoteParticipants.values()) {
    for (const publication of participant.trackPublications.values()) {
      if (publication.track) onTrackSubscribed(publication.track, publication, participant);
    }
  }
  sync();
  onAudioPlaybackChanged();
  navigation.setStatus("live");
  const others = room.remoteParticipants.size;
  announcer.announce(others === 0 ? "You joined. Nobody else is here yet." : `You joined. ${others + 1} people are in the meeting.`);

  // Publish the previewed tracks as they are (no second permission prompt).
  for (const track of session.tracks) {
    pending.add(track.kind === Track.Kind.Video ? "camera" : "microphone");
  }
  sync();
  void Promise.all(
    session.tracks.map((track) =>
      local
        .publishTrack(track)
        .catch(() => showProblem(`Your ${track.kind === Track.Kind.Video ? "camera" : "microphone"} could not be shared with the meeting.`))
        .finally(() => pending.delete(track.kind === Track.Kind.Video ? "camera" : "microphone")),
    ),
  ).then(sync);

  return () => {
    panel.dispose();
    disposed = true;
    resizes.disconnect();
    for (const [event, listener] of listeners) room.off(event, listener as never);
    for (const tile of tiles.values()) tile.destroy();
    for (const screen of screens.values()) screen.destroy();
    for (const [track, element] of audio) {
      track.detach(element);
      element.remove();
    }
    if (room.state !== "disconnected") void room.disconnect();
  };
}
