// The camera, microphone and speaker a person chose, remembered on this browser for the next
// meeting: the one definition the pre-join pickers and the room's settings dialog both use.

/** The browser's device kinds a person can choose (MediaDeviceInfo.kind). */
export type ChosenDeviceKind = "videoinput" | "audioinput" | "audiooutput";

const STORAGE_KEYS: Record<ChosenDeviceKind, string> = {
  videoinput: "svc.meeting.camera",
  audioinput: "svc.meeting.microphone",
  audiooutput: "svc.meeting.speaker",
};

/**
 * Device ids are per site and stable across visits (once the camera was allowed), so the id is what
 * is kept. A remembered device that is gone is only a preference: capture asks for it as `ideal`,
 * and the browser picks another.
 */
export const rememberedDevice = {
  get(kind: ChosenDeviceKind): string | undefined {
    try {
      return localStorage.getItem(STORAGE_KEYS[kind]) ?? undefined;
    } catch {
      return undefined; // storage can be disabled; the choice is a convenience only
    }
  },
  set(kind: ChosenDeviceKind, deviceId: string) {
    try {
      localStorage.setItem(STORAGE_KEYS[kind], deviceId);
    } catch {
      // as above
    }
  },
};
