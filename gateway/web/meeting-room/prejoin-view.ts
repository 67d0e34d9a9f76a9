import {
  createAudioAnalyser,
  createLocalAudioTrack,
  createLocalTracks,
  createLocalVideoTrack,
  MediaDeviceFailure,
  Room,
  Track,
  VideoPresets,
  type LocalAudioTrack,
  type LocalVideoTrack,
} from "livekit-client";
import { h, icon, replaceChildren, setAttributes } from "../shared/dom.ts";
import { requestJoinGrant, requestLobbyStatus, type JoinGrant, type JoinRefusal } from "./api.ts";
import { checkDisplayName } from "./display-name.ts";
import { iconPaths } from "./icons.ts";
import { rememberedName, type Meeting, type Navigation } from "./meeting.ts";

type DeviceKind = "camera" | "microphone";
/** on/off: the person's choice; the others: why the device cannot be used. */
type DeviceState = "pending" | "on" | "off" | "blocked" | "missing" | "busy" | "failed";

const deviceLabels: Record<DeviceKind, string> = { camera: "Camera", microphone: "Microphone" };
const stateTexts: Record<DeviceState, string> = {
  pending: "starting…",
  on: "on",
  off: "off",
  blocked: "blocked by the browser",
  missing: "not found",
  busy: "in use by another application",
  failed: "not working",
};

const usable = (state: DeviceState) => state === "on" || state === "off" || state === "pending";

/** Room options shared by every join (docs/decisions/0006-join-url-capability-and-livekit.md). */
export function createRoom(devices: { camera?: string; microphone?: string }): Room {
  return new Room({
    // livekit-server 1.8.4 has no /rtc/v1: without this the client tries it first and falls back.
    singlePeerConnection: false,
    adaptiveStream: true,
    dynacast: true,
    videoCaptureDefaults: { resolution: VideoPresets.h720.resolution, ...(devices.camera ? { deviceId: devices.camera } : {}) },
    audioCaptureDefaults: { echoCancellation: true, noiseSuppression: true, ...(devices.microphone ? { deviceId: devices.microphone } : {}) },
  });
}

/**
 * Pre-join: the person's name, a preview of their camera and microphone with on/off toggles and
 * device choice, and the Join button. Joining asks the API for a grant, connects to LiveKit and
 * hands the connected room and the previewed tracks to the room view.
 */
export function mountPreJoin(container: HTMLElement, meeting: Meeting, navigation: Navigation): () => void {
  let disposed = false;
  let handedOver = false;
  let joining = false;
  let retryTimer: number | undefined;
  /** Set while a 429's Retry-After runs. */
  let waiting = false;
  const tracks: { camera?: LocalVideoTrack; microphone?: LocalAudioTrack } = {};
  const states: Record<DeviceKind, DeviceState> = { camera: "pending", microphone: "pending" };
  const chosenDevice: { camera?: string; microphone?: string } = {};
  let stopLevel: (() => void) | undefined;

  // Preview: the camera picture (mirrored, as a mirror would), or a placeholder saying why not.
  const video = h("video", { class: "preview-video mirror", muted: true, playsinline: true, autoplay: true, "aria-hidden": "true" });
  video.muted = true;
  const placeholder = h("p", { class: "preview-placeholder" });
  const level = h("span", { class: "level-bar" });
  const levelMeter = h("span", { class: "level", "aria-hidden": "true" }, level);
  const toggles = {
    microphone: toggleButton("microphone"),
    camera: toggleButton("camera"),
  };
  const deviceStatus = h("p", { class: "device-status", id: "device-status", "aria-live": "polite" });
  const selects = { camera: deviceSelect("camera"), microphone: deviceSelect("microphone") };

  // Refusal: explains a blocked camera/microphone and offers to join without them.
  const permissionHeading = h("h3", { id: "permission-heading" });
  const permissionText = h("p");
  const retryDevices = h("button", { type: "button", class: "button secondary" }, "Try again");
  const permissionNotice = h(
    "section",
    { class: "notice notice-warning", "aria-labelledby": "permission-heading", hidden: true },
    h("div", { class: "notice-icon" }, icon(iconPaths("warning"))),
    h("div", {}, permissionHeading, permissionText, h("p", { class: "notice-actions" }, retryDevices)),
  );

  // The form.
  const nameInput = h("input", {
    id: "display-name",
    name: "displayName",
    type: "text",
    autocomplete: "name",
    required: true,
    spellcheck: "false",
    "aria-describedby": "display-name-hint",
  });
  nameInput.value = rememberedName.get();
  const nameError = h("p", { class: "field-error", id: "display-name-error", hidden: true });
  const joinError = h("div", { class: "join-error", role: "alert" });
  const joinButton = h("button", { type: "submit", class: "button primary join-button" }, "Join meeting");
  const joinStatus = h("p", { class: "join-status", role: "status" });
  const form = h(
    "form",
    { class: "join-form", novalidate: true, "aria-labelledby": "view-heading" },
    h("h2", { id: "view-heading", tabindex: "-1" }, "Ready to join?"),
    h("p", { class: "lead" }, "Check your camera and microphone, then join. Nobody sees or hears you before you join."),
    h(
      "div",
      { class: "field" },
      h("label", { for: "display-name" }, "Your name"),
      nameInput,
      h("p", { class: "field-hint", id: "display-name-hint" }, "Shown to everyone in the meeting, 1 to 64 characters."),
      nameError,
    ),
    joinError,
    h("div", { class: "join-actions" }, joinButton, joinStatus),
  );

  const section = h(
    "section",
    { class: "prejoin" },
    h(
      "div",
      { class: "preview" },
      h(
        "div",
        { class: "preview-frame" },
        video,
        placeholder,
        h("div", { class: "preview-toggles", role: "group", "aria-label": "Camera and microphone" }, toggles.microphone, toggles.camera),
        levelMeter,
      ),
      deviceStatus,
      h("div", { class: "device-selects" }, selects.camera.field, selects.microphone.field),
      permissionNotice,
    ),
    form,
  );
  replaceChildren(container, section);

  function toggleButton(kind: DeviceKind) {
    const button = h("button", {
      type: "button",
      class: "round-toggle",
      "aria-pressed": "false",
      "aria-describedby": "device-status",
      "aria-label": deviceLabels[kind],
    });
    button.addEventListener("click", () => void toggle(kind));
    return button;
  }

  function deviceSelect(kind: DeviceKind) {
    const id = `${kind}-select`;
    const select = h("select", { id });
    const field = h("div", { class: "select-field", hidden: true }, h("label", { for: id }, deviceLabels[kind]), select);
    select.addEventListener("change", () => {
      chosenDevice[kind] = select.value;
      const track = tracks[kind];
      if (track) void track.setDeviceId(select.value).catch(() => undefined);
    });
    return { field, select };
  }

  function render() {
    for (const kind of ["camera", "microphone"] as const) {
      const state = states[kind];
      const button = toggles[kind];
      button.replaceChildren(icon(iconPaths(kind === "camera" ? "camera" : "microphone", state !== "on")));
      // aria-disabled, not disabled: a button that was just pressed keeps the keyboard focus.
      setAttributes(button, {
        "aria-pressed": state === "on" ? "true" : "false",
        "aria-disabled": state === "on" || state === "off" ? null : "true",
        "data-state": state,
      });
    }
    deviceStatus.textContent = `${deviceLabels.camera} ${stateTexts[states.camera]} · ${deviceLabels.microphone} ${stateTexts[states.microphone]}`;

    const cameraOn = states.camera === "on" && tracks.camera;
    section.dataset.camera = cameraOn ? "on" : "off";
    placeholder.textContent = cameraOn ? "" : states.camera === "pending" ? "Starting camera…" : `Camera ${stateTexts[states.camera]}`;
    levelMeter.hidden = states.microphone !== "on";

    const blocked = (["camera", "microphone"] as const).filter((kind) => !usable(states[kind]));
    permissionNotice.hidden = blocked.length === 0;
    if (blocked.length > 0) {
      const what = blocked.length === 2 ? "Camera and microphone" : deviceLabels[blocked[0]!];
      const refused = blocked.some((kind) => states[kind] === "blocked");
      permissionHeading.textContent = refused ? `${what} ${blocked.length === 2 ? "are" : "is"} blocked` : `${what} not available`;
      permissionText.textContent = refused
        ? "Your browser did not allow this page to use them. Allow them for this site in the address bar or the site settings, then choose Try again. Or join without them: you will still see and hear everyone."
        : "They could not be started (not found, or in use by another application). Connect or free them, then choose Try again. Or join without them: you will still see and hear everyone.";
    }
    if (!joining) {
      joinButton.textContent =
        blocked.length === 2
          ? "Join without camera and microphone"
          : blocked.length === 1
            ? `Join without ${deviceLabels[blocked[0]!].toLowerCase()}`
            : "Join meeting";
    }
  }

  function failureState(error: unknown): DeviceState {
    switch (MediaDeviceFailure.getFailure(error)) {
      case MediaDeviceFailure.PermissionDenied:
        return "blocked";
      case MediaDeviceFailure.NotFound:
        return "missing";
      case MediaDeviceFailure.DeviceInUse:
        return "busy";
      default:
        return "failed";
    }
  }

  function adopt(track: LocalVideoTrack | LocalAudioTrack) {
    if (disposed) {
      track.stop();
      return;
    }
    if (track.kind === Track.Kind.Video) {
      tracks.camera = track as LocalVideoTrack;
      states.camera = "on";
      track.attach(video);
    } else {
      tracks.microphone = track as LocalAudioTrack;
      states.microphone = "on";
      startLevel(track as LocalAudioTrack);
    }
  }

  const captureOptions = (kind: DeviceKind) =>
    kind === "camera"
      ? { resolution: VideoPresets.h720.resolution, ...(chosenDevice.camera ? { deviceId: chosenDevice.camera } : {}) }
      : { echoCancellation: true, noiseSuppression: true, ...(chosenDevice.microphone ? { deviceId: chosenDevice.microphone } : {}) };

  /** Asks for both at once (one browser prompt); if that fails for one reason, tries each alone. */
  async function startDevices() {
    states.camera = states.microphone = "pending";
    render();
    try {
      const created = await createLocalTracks({ video: captureOptions("camera"), audio: captureOptions("microphone") });
      for (const track of created) adopt(track as LocalVideoTrack | LocalAudioTrack);
    } catch (error) {
      if (disposed) return;
      if (MediaDeviceFailure.getFailure(error) === MediaDeviceFailure.PermissionDenied) {
        states.camera = states.microphone = "blocked";
      } else {
        // One may still work (a desktop without a camera, say).
        await Promise.all([enable("camera"), enable("microphone")]);
      }
    }
    if (disposed) return;
    render();
    await listDevices();
  }

  async function enable(kind: DeviceKind) {
    states[kind] = "pending";
    render();
    try {
      adopt(kind === "camera" ? await createLocalVideoTrack(captureOptions("camera")) : await createLocalAudioTrack(captureOptions("microphone")));
    } catch (error) {
      states[kind] = failureState(error);
    }
    if (!disposed) render();
  }

  function disable(kind: DeviceKind) {
    const track = tracks[kind];
    delete tracks[kind];
    if (kind === "microphone") stopLevel?.();
    if (track) {
      track.detach();
      track.stop();
    }
    states[kind] = "off";
    render();
  }

  async function toggle(kind: DeviceKind) {
    if (states[kind] === "on") disable(kind);
    else if (states[kind] === "off") await enable(kind);
  }

  async function listDevices() {
    for (const kind of ["camera", "microphone"] as const) {
      const devices = await Room.getLocalDevices(kind === "camera" ? "videoinput" : "audioinput", false).catch(() => []);
      const { field, select } = selects[kind];
      const current = tracks[kind]?.mediaStreamTrack.getSettings().deviceId ?? chosenDevice[kind];
      select.replaceChildren(
        ...devices.map((device, index) => {
          const option = h("option", { value: device.deviceId }, device.label || `${deviceLabels[kind]} ${index + 1}`);
          option.selected = device.deviceId === current;
          return option;
        }),
      );
      // Without permission the browser lists no names; choosing then makes no sense.
      field.hidden = devices.length === 0 || !usable(states[kind]) || devices.every((device) => !device.label);
    }
  }

  /** A level bar under the preview, so people see their microphone picks them up. */
  function startLevel(track: LocalAudioTrack) {
    stopLevel?.();
    const { calculateVolume, analyser, cleanup } = createAudioAnalyser(track, { cloneTrack: true, smoothingTimeConstant: 0.6 });
    // The audio context may start suspended until the person interacts with the page.
    const resume = () => void (analyser.context as AudioContext).resume().catch(() => undefined);
    document.addEventListener("pointerdown", resume, { once: true });
    document.addEventListener("keydown", resume, { once: true });
    let frame = requestAnimationFrame(function tick() {
      level.style.transform = `scaleX(${Math.min(1, calculateVolume() * 4).toFixed(3)})`;
      frame = requestAnimationFrame(tick);
    });
    stopLevel = () => {
      cancelAnimationFrame(frame);
      document.removeEventListener("pointerdown", resume);
      document.removeEventListener("keydown", resume);
      void cleanup();
      stopLevel = undefined;
    };
  }

  function showNameError(message: string) {
    nameError.textContent = message;
    nameError.hidden = false;
    setAttributes(nameInput, { "aria-invalid": "true", "aria-describedby": "display-name-hint display-name-error" });
    nameInput.focus();
  }

  function clearErrors() {
    nameError.hidden = true;
    nameError.textContent = "";
    setAttributes(nameInput, { "aria-invalid": null, "aria-describedby": "display-name-hint" });
    joinError.replaceChildren();
  }

  function showJoinError(heading: string, message: string, requestId?: string) {
    replaceChildren(
      joinError,
      h(
        "div",
        { class: "notice notice-error" },
        h("div", { class: "notice-icon" }, icon(iconPaths("warning"))),
        h(
          "div",
          {},
          h("p", { class: "notice-title" }, heading),
          h("p", {}, message),
          requestId ? h("p", { class: "reference" }, "Reference: ", h("code", {}, requestId)) : null,
        ),
      ),
    );
  }

  // aria-disabled rather than disabled throughout: the focused button keeps the focus.
  function setJoining(value: boolean) {
    joining = value;
    setAttributes(joinButton, { "aria-disabled": value ? "true" : null });
    joinStatus.textContent = value ? "Joining…" : "";
    if (value) joinButton.textContent = "Joining…";
    else render();
  }

  function refused(refusal: JoinRefusal) {
    switch (refusal.status) {
      case 400:
        return showNameError(refusal.error);
      case 403:
      case 404:
      case 410:
        return navigation.outcome({ kind: "refused", status: refusal.status, message: refusal.error });
      case 409:
        return showJoinError(/locked/i.test(refusal.error) ? "The meeting is locked" : "The meeting is full", refusal.error);
      case 429:
        return waitBeforeRetry(refusal);
      default:
        return showJoinError(refusal.status === 0 ? "No connection" : "Could not join", refusal.error, refusal.requestId);
    }
  }

  /** 429: the API's words, and the Join button waits out Retry-After. */
  function waitBeforeRetry(refusal: JoinRefusal) {
    let seconds = refusal.retryAfterSeconds ?? 5;
    showJoinError("Too many attempts", refusal.error);
    const countdown = h("p", { class: "countdown" });
    joinError.querySelector(".notice > div:last-child")?.appendChild(countdown);
    waiting = true;
    setAttributes(joinButton, { "aria-disabled": "true" });
    const tick = () => {
      if (seconds <= 0) {
        countdown.textContent = "You can try again now.";
        waiting = false;
        setAttributes(joinButton, { "aria-disabled": null });
        return;
      }
      countdown.textContent = `You can try again in ${seconds} s.`;
      seconds -= 1;
      retryTimer = window.setTimeout(tick, 1_000);
    };
    tick();
  }

  async function join(event: SubmitEvent) {
    event.preventDefault();
    if (joining || waiting) return;
    clearErrors();
    const check = checkDisplayName(nameInput.value);
    if (!check.ok) return showNameError(check.message);
    setJoining(true);
    const result = await requestJoinGrant(meeting.id, check.name, meeting.link);
    if (disposed) return;
    if (!result.ok) {
      setJoining(false);
      return refused(result);
    }
    rememberedName.set(check.name);
    const grant = "grant" in result ? result.grant : await waitInLobby(result.lobbyTicket);
    if (!grant || disposed) return;
    await enter(grant, check.name);
  }

  /**
   * The meeting has a lobby: say so (the title stays in view above) and ask how it stands every
   * second and a half until a host admits (the grant), denies, or the meeting closes.
   */
  async function waitInLobby(ticket: string): Promise<JoinGrant | undefined> {
    const lobbyHeading = h("h2", { id: "view-heading", tabindex: "-1" }, "Waiting to be let in");
    const lobbyText = h("p", { class: "lead" }, "A host of this meeting will let you in soon. Keep this page open; you will join as soon as you are admitted.");
    const lobby = h("section", { class: "card lobby-wait", role: "status", "aria-live": "polite", "aria-labelledby": "view-heading" }, lobbyHeading, lobbyText);
    form.replaceWith(lobby);
    lobbyHeading.focus();
    for (;;) {
      await new Promise((resolve) => (retryTimer = window.setTimeout(resolve, 1_500)));
      if (disposed) return undefined;
      const answer = await requestLobbyStatus(meeting.id, ticket);
      if (disposed) return undefined;
      if (!answer.ok) {
        if (answer.status === 0 || answer.status >= 500 || answer.status === 429) continue; // passing trouble: keep waiting
        navigation.outcome({ kind: "refused", status: answer.status, message: answer.error });
        return undefined;
      }
      if (answer.status === "admitted") {
        lobbyHeading.textContent = "You were admitted";
        lobbyText.textContent = "Joining the meeting…";
        return answer.grant;
      }
      if (answer.status === "denied") {
        navigation.outcome({ kind: "denied" });
        return undefined;
      }
      lobby.dataset.state = answer.status;
      lobbyHeading.textContent = answer.status === "locked" ? "The meeting is locked" : "Waiting to be let in";
      lobbyText.textContent =
        answer.status === "locked"
          ? "A host locked the meeting: nobody new can enter for now. You are still waiting, and will join if a host unlocks it and lets you in."
          : "A host of this meeting will let you in soon. Keep this page open; you will join as soon as you are admitted.";
    }
  }

  async function enter(grant: JoinGrant, displayName: string) {
    const result = { grant };
    const check = { name: displayName };
    const room = createRoom(chosenDevice);
    try {
      await room.connect(result.grant.serverUrl, result.grant.token);
    } catch {
      await room.disconnect().catch(() => undefined);
      if (disposed) return;
      setJoining(false);
      return showJoinError("Could not connect", "The meeting's media server could not be reached. Check your connection and try again.");
    }
    if (disposed) {
      await room.disconnect();
      return;
    }
    handedOver = true;
    const published = [tracks.microphone, tracks.camera].filter((track) => track !== undefined);
    for (const track of published) track.detach();
    navigation.room({ room, grant: result.grant, displayName: check.name, tracks: published });
  }

  form.addEventListener("submit", (event) => void join(event));
  retryDevices.addEventListener("click", () => {
    for (const kind of ["camera", "microphone"] as const) if (tracks[kind]) disable(kind);
    void startDevices();
  });
  render();
  void startDevices();

  return () => {
    disposed = true;
    window.clearTimeout(retryTimer);
    stopLevel?.();
    if (!handedOver) for (const track of Object.values(tracks)) track.stop();
  };
}
