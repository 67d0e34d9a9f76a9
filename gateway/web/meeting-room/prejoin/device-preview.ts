import type { LocalAudioTrack } from "livekit-client";
import { h, icon, setAttributes } from "../../shared/dom.ts";
import { iconPaths } from "../icons.ts";
import { createDevicePickers } from "./device-pickers.ts";
import { deviceKinds, deviceLabels, stateTexts, unusableDevices, type DeviceKind } from "./devices.ts";
import { createLevelMeter } from "./level-meter.ts";
import { createLocalDevices, type LocalDevices } from "./local-devices.ts";
import { createPermissionNotice } from "./permission-notice.ts";

export interface DevicePreview {
  element: HTMLElement;
  devices: LocalDevices;
  /** The camera picture is showing. */
  cameraShown(): boolean;
  /** Shows the initial state and asks the browser for the camera and microphone. */
  start(): void;
  dispose(): void;
}

/**
 * The camera picture (mirrored, as a mirror would) or a placeholder saying why not, the microphone
 * and camera toggles, a level meter, the devices' states in words, the device pickers, and the
 * notice when a device cannot be used. `onChange` hears every change of the devices' states.
 */
export function createDevicePreview(onChange: () => void): DevicePreview {
  const video = h("video", { class: "preview-video mirror", muted: true, playsinline: true, autoplay: true, "aria-hidden": "true" });
  video.muted = true;
  const placeholder = h("p", { class: "preview-placeholder" });
  const levelMeter = createLevelMeter();
  const deviceStatus = h("p", { class: "device-status", id: "device-status", "aria-live": "polite" });

  const devices = createLocalDevices({
    onChange: () => render(),
    onTrack(kind, track) {
      if (kind === "camera") track?.attach(video);
      else if (track) levelMeter.follow(track as LocalAudioTrack);
      else levelMeter.stop();
    },
  });
  const toggles = { microphone: toggleButton("microphone"), camera: toggleButton("camera") };
  const pickers = createDevicePickers(devices);
  const permissionNotice = createPermissionNotice(() => void devices.restart().then(pickers.refresh));

  const element = h(
    "div",
    { class: "preview" },
    h(
      "div",
      { class: "preview-frame" },
      video,
      placeholder,
      h("div", { class: "preview-toggles", role: "group", "aria-label": "Camera and microphone" }, toggles.microphone, toggles.camera),
      levelMeter.element,
    ),
    deviceStatus,
    pickers.element,
    permissionNotice.element,
  );

  function toggleButton(kind: DeviceKind) {
    const button = h("button", {
      type: "button",
      class: "round-toggle",
      "aria-pressed": "false",
      "aria-describedby": "device-status",
      "aria-label": deviceLabels[kind],
    });
    button.addEventListener("click", () => void devices.toggle(kind));
    return button;
  }

  function render() {
    const { states } = devices;
    for (const kind of deviceKinds) {
      const state = states[kind];
      toggles[kind].replaceChildren(icon(iconPaths(kind, state !== "on")));
      // aria-disabled, not disabled: a button that was just pressed keeps the keyboard focus.
      setAttributes(toggles[kind], {
        "aria-pressed": state === "on" ? "true" : "false",
        "aria-disabled": state === "on" || state === "off" ? null : "true",
        "data-state": state,
      });
    }
    deviceStatus.textContent = `${deviceLabels.camera} ${stateTexts[states.camera]} · ${deviceLabels.microphone} ${stateTexts[states.microphone]}`;
    const cameraOn = cameraShown();
    placeholder.textContent = cameraOn ? "" : states.camera === "pending" ? "Starting camera…" : `Camera ${stateTexts[states.camera]}`;
    levelMeter.element.hidden = states.microphone !== "on";
    permissionNotice.update(unusableDevices(states), states);
    onChange();
  }

  function cameraShown() {
    return devices.states.camera === "on" && devices.tracks.camera !== undefined;
  }

  return {
    element,
    devices,
    cameraShown,
    start() {
      render();
      void devices.start().then(pickers.refresh);
    },
    dispose() {
      devices.dispose();
      levelMeter.stop();
    },
  };
}
