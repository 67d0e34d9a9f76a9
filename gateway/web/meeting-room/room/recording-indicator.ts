import { RoomEvent, type Room } from "livekit-client";
import { h } from "../../shared/dom.ts";
import type { RoomApi, RoomRecordingState } from "../room-api.ts";

/** What the server sends on topic `svc.recording` (services/meeting/src/recording/recordings.ts). */
export type RecordingNotice = { type: "started"; recordingId: string; layout: "grid" | "audio" } | { type: "stopped"; recordingId: string };

/**
 * The recording indicator everyone in the room sees while the meeting is recorded, and the
 * announcement when a recording starts or stops (docs/meeting-room.md, "Recording": people must
 * know they are being recorded). The state comes from the room API when the room opens, then from
 * the server's `svc.recording` packets, and LiveKit's own flag (a recorder is in the room) keeps
 * it on even if a packet was missed.
 */
export function createRecordingIndicator(room: Room, api: RoomApi, announce: (text: string) => void) {
  const element = h(
    "p",
    { class: "recording-indicator", role: "status", hidden: true },
    h("span", { class: "recording-dot", "aria-hidden": "true" }),
    "Recording",
  );
  const notice = h("p", { class: "recording-notice", role: "alert" });
  let byServer = false;
  // After a stop the recorder stays in the room while it finishes the file, and LiveKit still
  // counts the room as recorded: the server's word wins until LiveKit's flag drops.
  let stoppedByServer = false;
  let layout: "grid" | "audio" = "grid";
  let noticeTimer: number | undefined;
  const listeners = new Set<(state: { recording: boolean; mode: RoomRecordingState["mode"] }) => void>();
  let mode: RoomRecordingState["mode"] = "off";

  const recording = () => byServer || (room.isRecording && !stoppedByServer);
  function render() {
    element.hidden = !recording();
    element.lastChild!.textContent = layout === "audio" ? "Recording audio" : "Recording";
    for (const listener of listeners) listener({ recording: recording(), mode });
  }
  function say(text: string) {
    announce(text);
    notice.textContent = text;
    window.clearTimeout(noticeTimer);
    noticeTimer = window.setTimeout(() => (notice.textContent = ""), 8_000);
  }
  function change(next: boolean) {
    const was = recording();
    byServer = next;
    stoppedByServer = !next;
    if (recording() !== was) say(recording() ? "This meeting is now being recorded." : "The recording stopped.");
    render();
  }

  const onLiveKitFlag = () => {
    const was = recording();
    if (!room.isRecording) stoppedByServer = false;
    if (recording() !== was) say(recording() ? "This meeting is now being recorded." : "The recording stopped.");
    render();
  };
  room.on(RoomEvent.RecordingStatusChanged, onLiveKitFlag);
  void api.recording().then((answer) => {
    if (!answer.ok) return;
    mode = answer.body.mode;
    if (answer.body.layout) layout = answer.body.layout;
    byServer = answer.body.recording;
    if (recording()) say("This meeting is being recorded.");
    render();
  });

  return {
    element,
    notice,
    /** A `svc.recording` packet from the server. */
    notify(packet: RecordingNotice) {
      if (packet.type === "started") layout = packet.layout;
      change(packet.type === "started");
    },
    /** The host control follows the same state. */
    onChange(listener: (state: { recording: boolean; mode: RoomRecordingState["mode"] }) => void) {
      listeners.add(listener);
      listener({ recording: recording(), mode });
    },
    /** A host's own start or stop, confirmed by the API before the packet arrives. */
    set(next: boolean) {
      change(next);
    },
    dispose() {
      window.clearTimeout(noticeTimer);
      room.off(RoomEvent.RecordingStatusChanged, onLiveKitFlag);
    },
  };
}

export type RecordingIndicator = ReturnType<typeof createRecordingIndicator>;
