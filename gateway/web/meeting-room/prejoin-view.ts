import { Room, supportsAudioOutputSelection, VideoPresets } from "livekit-client";
import { h, replaceChildren } from "../shared/dom.ts";
import { requestLinkHolder, requestVisitorStanding, type JoinGrant, type JoinRefusal, type LinkHolder } from "./api.ts";
import { rememberedDevice } from "./device-choice.ts";
import { checkDisplayName } from "./display-name.ts";
import { rememberedName, type Meeting, type Navigation } from "./meeting.ts";
import { createDevicePreview } from "./prejoin/device-preview.ts";
import { unusableDevices } from "./prejoin/devices.ts";
import { createJoinForm, type JoinForm } from "./prejoin/join-form.ts";
import { createPreparedJoin } from "./prejoin/prepared-join.ts";
import { outdatedMediaServerVersion } from "./prejoin/media-server-version.ts";
import { waitInLobby } from "./prejoin/lobby-wait.ts";

/** Room options shared by every join (docs/decisions/0006-join-url-capability-and-livekit.md). */
export function createRoom(devices: { camera?: string; microphone?: string }): Room {
  const speaker = rememberedDevice.get("audiooutput");
  return new Room({
    adaptiveStream: true,
    dynacast: true,
    videoCaptureDefaults: { resolution: VideoPresets.h720.resolution, ...(devices.camera ? { deviceId: devices.camera } : {}) },
    audioCaptureDefaults: { echoCancellation: true, noiseSuppression: true, ...(devices.microphone ? { deviceId: devices.microphone } : {}) },
    // The speaker chosen in an earlier meeting's settings (room/device-settings.ts), where the browser can choose one.
    ...(speaker && supportsAudioOutputSelection() ? { audioOutput: { deviceId: speaker } } : {}),
  });
}

/** A pause in typing this long means the name is known: the grant is asked for (prejoin/prepared-join.ts). */
const TYPING_PAUSE_MS = 600;

/**
 * Pre-join: the device preview (prejoin/device-preview.ts: camera picture, toggles, level, device
 * pickers, the notice when a device cannot be used) beside the join form (prejoin/join-form.ts).
 * The grant is asked for as soon as the name is known (prejoin/prepared-join.ts); joining
 * connects to LiveKit with it and hands the connected room and the previewed tracks to the room view.
 */
export function mountPreJoin(container: HTMLElement, meeting: Meeting, navigation: Navigation): () => void {
  let disposed = false;
  let holderRole: string | undefined;
  // Without a lobby, or for a host (who skips it), asking ahead seats nobody anywhere.
  const prepared = createPreparedJoin(meeting, () => !meeting.lobby || holderRole === "host");
  // The browser session's standing, asked first: its answer also gives a new session its visitor
  // key (a cookie), which every grant must then carry, so nothing asks for a grant before it.
  const standing = requestVisitorStanding(meeting.id);
  let standingKnown = false;
  const prepareForTypedName = () => {
    const check = checkDisplayName(form.nameInput.value);
    if (check.ok && standingKnown) prepared.prepare(check.name);
  };
  const form = createJoinForm(() => void join());
  let typingTimer: number | undefined;
  form.nameInput.addEventListener("input", () => {
    window.clearTimeout(typingTimer);
    typingTimer = window.setTimeout(prepareForTypedName, TYPING_PAUSE_MS);
  });
  const preview = createDevicePreview(() => {
    section.dataset.camera = preview.cameraShown() ? "on" : "off";
    form.setUnusableDevices(unusableDevices(preview.devices.states));
  });
  const section = h("section", { class: "prejoin" }, preview.element, form.element);
  replaceChildren(container, section);

  async function join() {
    form.clearErrors();
    const check = checkDisplayName(form.nameInput.value);
    if (!check.ok) return form.showNameError(check.message);
    window.clearTimeout(typingTimer);
    form.setJoining(true);
    await standing;
    if (disposed) return; // removed: the page says so instead
    const result = await prepared.take(check.name);
    if (disposed) return;
    if (!result.ok) {
      form.setJoining(false);
      return showRefusal(form, navigation, result);
    }
    rememberedName.set(check.name);
    // With the meeting's lobby on, anyone but a host waits for a host to admit them.
    const grant: JoinGrant | undefined =
      "grant" in result ? result.grant : await waitInLobby(form.element, meeting, result.lobbyTicket, navigation, () => disposed);
    if (!grant || disposed) return;
    const room = createRoom(preview.devices.chosen);
    try {
      await room.connect(grant.serverUrl, grant.token);
    } catch {
      await room.disconnect().catch(() => undefined);
      if (disposed) return;
      form.setJoining(false);
      return form.showJoinError("Could not connect", "The meeting's media server could not be reached. Check your connection and try again.");
    }
    if (disposed) {
      await room.disconnect();
      return;
    }
    const outdated = outdatedMediaServerVersion(room);
    if (outdated) {
      await room.disconnect();
      return navigation.outcome({ kind: "unsupported-media-server", version: outdated });
    }
    navigation.room({ room, grant, displayName: check.name, tracks: preview.devices.handOver() });
  }

  // Someone removed from the meeting in this browser session who reloads is told so, not offered
  // to join (and not asked for their camera): the preview starts once the answer says otherwise.
  void standing.then((answer) => {
    standingKnown = true;
    if (disposed) return;
    if (answer?.removed) return navigation.outcome({ kind: "removed" });
    preview.start();
    if (!meeting.link) return prepareForTypedName(); // a name remembered from last time
    showLinkHolder(
      meeting.id,
      meeting.link,
      form,
      navigation,
      () => disposed,
      (role) => {
        holderRole = role;
        prepareForTypedName();
      },
    );
  });
  return () => {
    disposed = true;
    window.clearTimeout(typingTimer);
    prepared.dispose();
    form.dispose();
    preview.dispose();
  };
}

/**
 * Opened with a personal link: ask whom it is for, to prefill the name and say the role; a link
 * that cannot let its holder in (expired, revoked, another meeting's) is said at once, not at Join.
 */
function showLinkHolder(
  meetingId: string,
  link: string,
  form: JoinForm,
  navigation: Navigation,
  stopped: () => boolean,
  known: (role: LinkHolder["role"]) => void,
) {
  void requestLinkHolder(meetingId, link).then((answer) => {
    if (stopped() || form.busy()) return;
    if (answer.ok) {
      form.showHolder(answer.holder);
      known(answer.holder.role);
    } else if (answer.status === 403 || answer.status === 404) navigation.outcome({ kind: "refused", status: answer.status, message: answer.error });
  });
}

/**
 * The API refused the join grant: the name (400), the link or a removal (403), the meeting's state
 * (404, 410), full or locked (409), too many attempts (429), or anything else.
 */
function showRefusal(form: JoinForm, navigation: Navigation, refusal: JoinRefusal) {
  switch (refusal.status) {
    case 400:
      return form.showNameError(refusal.error);
    case 403:
    case 404:
    case 410:
      return navigation.outcome({ kind: "refused", status: refusal.status, message: refusal.error });
    case 409:
      return form.showJoinError(/locked/i.test(refusal.error) ? "The meeting is locked" : "The meeting is full", refusal.error);
    case 429:
      return form.waitBeforeRetry(refusal);
    default:
      return form.showJoinError(refusal.status === 0 ? "No connection" : "Could not join", refusal.error, refusal.requestId);
  }
}
