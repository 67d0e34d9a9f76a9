import {
  createLocalAudioTrack,
  createLocalTracks,
  createLocalVideoTrack,
  MediaDeviceFailure,
  Track,
  VideoPresets,
  type LocalAudioTrack,
  type LocalVideoTrack,
} from "livekit-client";
import { rememberedDevice } from "../device-choice.ts";
import { browserKinds, type DeviceKind, type DeviceState } from "./devices.ts";

export interface LocalDevices {
  readonly states: Readonly<Record<DeviceKind, DeviceState>>;
  readonly tracks: Readonly<{ camera?: LocalVideoTrack; microphone?: LocalAudioTrack }>;
  /** The devices the person picked (device ids; at first those remembered from the last meeting), used for new tracks and for the room. */
  readonly chosen: Readonly<{ camera?: string; microphone?: string }>;
  /** Asks for both at once (one browser prompt); if that fails for one reason, tries each alone. */
  start(): Promise<void>;
  /** On ↔ off; nothing for a device that cannot be used. */
  toggle(kind: DeviceKind): Promise<void>;
  /** Stops what runs and asks again (after the person changed the browser's permission). */
  restart(): Promise<void>;
  choose(kind: DeviceKind, deviceId: string): void;
  /** The tracks, now the room's to publish: disposing no longer stops them. */
  handOver(): (LocalVideoTrack | LocalAudioTrack)[];
  dispose(): void;
}

/**
 * The local camera and microphone tracks of the pre-join step and their states. `onTrack` hears a
 * device start (with its track) or stop (undefined); `onChange` hears every state change.
 */
export function createLocalDevices(events: {
  onChange(): void;
  onTrack(kind: DeviceKind, track: LocalVideoTrack | LocalAudioTrack | undefined): void;
}): LocalDevices {
  let disposed = false;
  let handedOver = false;
  const tracks: { camera?: LocalVideoTrack; microphone?: LocalAudioTrack } = {};
  const states: Record<DeviceKind, DeviceState> = { camera: "pending", microphone: "pending" };
  const chosen: { camera?: string; microphone?: string } = {};
  for (const kind of ["camera", "microphone"] as const) {
    const remembered = rememberedDevice.get(browserKinds[kind]);
    if (remembered) chosen[kind] = remembered;
  }

  const captureOptions = (kind: DeviceKind) =>
    kind === "camera"
      ? { resolution: VideoPresets.h720.resolution, ...(chosen.camera ? { deviceId: chosen.camera } : {}) }
      : { echoCancellation: true, noiseSuppression: true, ...(chosen.microphone ? { deviceId: chosen.microphone } : {}) };

  function adopt(track: LocalVideoTrack | LocalAudioTrack) {
    if (disposed) {
      track.stop();
      return;
    }
    const kind: DeviceKind = track.kind === Track.Kind.Video ? "camera" : "microphone";
    if (kind === "camera") tracks.camera = track as LocalVideoTrack;
    else tracks.microphone = track as LocalAudioTrack;
    states[kind] = "on";
    events.onTrack(kind, track);
  }

  async function start() {
    states.camera = states.microphone = "pending";
    events.onChange();
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
    if (!disposed) events.onChange();
  }

  async function enable(kind: DeviceKind) {
    states[kind] = "pending";
    events.onChange();
    try {
      adopt(kind === "camera" ? await createLocalVideoTrack(captureOptions("camera")) : await createLocalAudioTrack(captureOptions("microphone")));
    } catch (error) {
      states[kind] = failureState(error);
    }
    if (!disposed) events.onChange();
  }

  function disable(kind: DeviceKind) {
    const track = tracks[kind];
    delete tracks[kind];
    events.onTrack(kind, undefined);
    if (track) {
      track.detach();
      track.stop();
    }
    states[kind] = "off";
    events.onChange();
  }

  return {
    states,
    tracks,
    chosen,
    start,
    async toggle(kind) {
      if (states[kind] === "on") disable(kind);
      else if (states[kind] === "off") await enable(kind);
    },
    async restart() {
      for (const kind of ["camera", "microphone"] as const) if (tracks[kind]) disable(kind);
      await start();
    },
    choose(kind, deviceId) {
      chosen[kind] = deviceId;
      rememberedDevice.set(browserKinds[kind], deviceId);
      const track = tracks[kind];
      if (track) void track.setDeviceId(deviceId).catch(() => undefined);
    },
    handOver() {
      handedOver = true;
      const published = [tracks.microphone, tracks.camera].filter((track) => track !== undefined);
      for (const track of published) track.detach();
      return published;
    },
    dispose() {
      disposed = true;
      if (!handedOver) for (const track of Object.values(tracks)) track.stop();
    },
  };
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
