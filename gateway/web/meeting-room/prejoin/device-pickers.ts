import { Room } from "livekit-client";
import { h } from "../../shared/dom.ts";
import { browserKinds, deviceKinds, deviceLabels, usable, type DeviceKind } from "./devices.ts";
import type { LocalDevices } from "./local-devices.ts";

export interface DevicePickers {
  element: HTMLElement;
  /** Lists the browser's cameras and microphones, the one in use selected. */
  refresh(): Promise<void>;
}

/** A camera and a microphone select, shown once the browser names the devices. */
export function createDevicePickers(devices: LocalDevices): DevicePickers {
  const pickers = { camera: devicePicker("camera"), microphone: devicePicker("microphone") };

  function devicePicker(kind: DeviceKind) {
    const id = `${kind}-select`;
    const select = h("select", { id });
    const field = h("div", { class: "select-field", hidden: true }, h("label", { for: id }, deviceLabels[kind]), select);
    select.addEventListener("change", () => devices.choose(kind, select.value));
    return { field, select };
  }

  return {
    element: h("div", { class: "device-selects" }, pickers.camera.field, pickers.microphone.field),
    async refresh() {
      for (const kind of deviceKinds) {
        const available = await Room.getLocalDevices(browserKinds[kind], false).catch(() => []);
        const { field, select } = pickers[kind];
        const current = devices.tracks[kind]?.mediaStreamTrack.getSettings().deviceId ?? devices.chosen[kind];
        select.replaceChildren(
          ...available.map((device, index) => {
            const option = h("option", { value: device.deviceId }, device.label || `${deviceLabels[kind]} ${index + 1}`);
            option.selected = device.deviceId === current;
            return option;
          }),
        );
        // Without permission the browser lists no names; choosing then makes no sense.
        field.hidden = available.length === 0 || !usable(devices.states[kind]) || available.every((device) => !device.label);
      }
    },
  };
}
