import { Room, RoomEvent, supportsAudioOutputSelection, Track } from "livekit-client";
import { h } from "../../shared/dom.ts";
import { rememberedDevice, type ChosenDeviceKind } from "../device-choice.ts";
import { createRoomDialog, type RoomDialog } from "./room-dialog.ts";

const labels: Record<ChosenDeviceKind, string> = { videoinput: "Camera", audioinput: "Microphone", audiooutput: "Speaker" };

export interface DeviceSettings {
  dialog: RoomDialog;
  /** Lists the devices (the ones in use selected) and opens the dialog. */
  open(): void;
  dispose(): void;
}

/**
 * The settings dialog in the call: camera, microphone and (where the browser can send sound to a
 * chosen output, setSinkId) speaker. A choice switches the room's device at once through
 * livekit-client (`switchActiveDevice`, which keeps a muted microphone or a camera that is off as it
 * is) and is remembered for the next meeting (../device-choice.ts). The lists follow devices being
 * plugged in and out (livekit-client's MediaDevicesChanged, the browser's `devicechange`).
 */
export function createDeviceSettings(room: Room, announce: (text: string) => void): DeviceSettings {
  const kinds: ChosenDeviceKind[] = supportsAudioOutputSelection() ? ["videoinput", "audioinput", "audiooutput"] : ["videoinput", "audioinput"];
  const status = h("p", { class: "settings-status", role: "status" });
  const selects = new Map<ChosenDeviceKind, HTMLSelectElement>();
  const fields = kinds.map((kind) => {
    const id = `settings-${kind}`;
    const select = h("select", { id });
    select.addEventListener("change", () => void choose(kind, select.value));
    selects.set(kind, select);
    return h("div", { class: "select-field" }, h("label", { for: id }, labels[kind]), select);
  });
  const note = supportsAudioOutputSelection()
    ? null
    : h("p", { class: "field-hint" }, "This browser plays sound through the system's speaker; choose it in the system's settings.");
  const dialog = createRoomDialog({ title: "Settings", className: "settings-dialog", content: [...fields, note, status] });

  async function choose(kind: ChosenDeviceKind, deviceId: string) {
    status.textContent = "";
    try {
      if (!(await room.switchActiveDevice(kind, deviceId))) throw new Error("not switched");
      rememberedDevice.set(kind, deviceId);
      const name = selects.get(kind)?.selectedOptions[0]?.textContent ?? "";
      announce(`${labels[kind]}: ${name}`);
    } catch {
      status.textContent = `The ${labels[kind].toLowerCase()} could not be switched. It may be in use by another application or unplugged.`;
      await refresh();
    }
  }

  /** The browser's devices of each kind, the one in use (or remembered) selected. */
  async function refresh() {
    for (const kind of kinds) {
      const select = selects.get(kind)!;
      const devices = await Room.getLocalDevices(kind, false).catch(() => []);
      const current = deviceInUse(room, kind) ?? rememberedDevice.get(kind) ?? "default";
      select.replaceChildren(
        ...devices.map((device, index) => {
          const option = h("option", { value: device.deviceId }, device.label || `${labels[kind]} ${index + 1}`);
          option.selected = device.deviceId === current;
          return option;
        }),
      );
      select.disabled = devices.length === 0;
    }
  }

  const onDevicesChanged = () => void refresh();
  room.on(RoomEvent.MediaDevicesChanged, onDevicesChanged);
  return {
    dialog,
    open() {
      void refresh().then(() => dialog.open(selects.get("videoinput")));
    },
    dispose() {
      room.off(RoomEvent.MediaDevicesChanged, onDevicesChanged);
      dialog.element.remove();
    },
  };
}

/** The device a local track captures from (what the browser actually opened), else the room's active one. */
function deviceInUse(room: Room, kind: ChosenDeviceKind): string | undefined {
  const source = kind === "videoinput" ? Track.Source.Camera : kind === "audioinput" ? Track.Source.Microphone : undefined;
  const track = source ? room.localParticipant.getTrackPublication(source)?.track : undefined;
  return track?.mediaStreamTrack.getSettings().deviceId ?? room.getActiveDevice(kind);
}
