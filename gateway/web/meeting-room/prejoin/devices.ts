// The camera and microphone before joining: which states a device can be in, and how they read.

export type DeviceKind = "camera" | "microphone";
/** on/off: the person's choice; the others: why the device cannot be used. */
export type DeviceState = "pending" | "on" | "off" | "blocked" | "missing" | "busy" | "failed";

export const deviceKinds = ["camera", "microphone"] as const;

/** The browser's name for each kind (MediaDeviceInfo.kind). */
export const browserKinds = { camera: "videoinput", microphone: "audioinput" } as const satisfies Record<DeviceKind, MediaDeviceKind>;

export const deviceLabels: Record<DeviceKind, string> = { camera: "Camera", microphone: "Microphone" };

export const stateTexts: Record<DeviceState, string> = {
  pending: "starting…",
  on: "on",
  off: "off",
  blocked: "blocked by the browser",
  missing: "not found",
  busy: "in use by another application",
  failed: "not working",
};

export const usable = (state: DeviceState) => state === "on" || state === "off" || state === "pending";

/** The devices that cannot be used (blocked, missing, busy, failed), camera first. */
export const unusableDevices = (states: Readonly<Record<DeviceKind, DeviceState>>): DeviceKind[] => deviceKinds.filter((kind) => !usable(states[kind]));
