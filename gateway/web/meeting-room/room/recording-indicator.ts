import { RoomEvent, type Room } from "livekit-client";
import { h } from "../../shared/dom.ts";
import type { RoomApi, RoomRecordingState } from "../room-api.ts";

/** What the server sends on topic `svc.recording` (services/meeting/src/recording/recording-changes.ts). */
export type RecordingNotice =
  | { type: "started"; recordingId: string; layout: "grid" | "audio" }
  | { type: "capturing"; recordingId: string; layout: "grid" | "audio"; transcribed: boolean }
  | { type: "stopped"; recordingId: string };

/** `starting`: the recorder accepted and is getting ready; `capturing`: it reports the run active (Egress's own status). */
type Phase = "off" | "starting" | "capturing";

/**
 * The recording indicator everyone in the room sees while the meeting is recorded, and the
 * announcement when a recording starts or stops (docs/meeting-room.md, "Recording": people must
 * know they are being recorded). It says "Starting…" from the moment a recording is asked for
 * and "Recording" only once the recorder reports it is capturing, so nobody takes the first
 * seconds for recorded. While a recording of a meeting whose transcription is on captures, each
 * person's audio is written for the transcript, and it says "Recording · Transcribing" (and
 * announces it): nobody is transcribed unknowingly. The state comes from the room API when the room opens, then from the
 * server's `svc.recording` packets; LiveKit's own flag (a recorder is in the room) keeps the
 * indicator on if a packet was missed, and has the state asked for again.
 */
export function createRecordingIndicator(room: Room, api: RoomApi, announce: (text: string) => void) {
  const label = h("span", { class: "recording-label" }, "Recording");
  const element = h("p", { class: "recording-indicator", role: "status", hidden: true }, h("span", { class: "recording-dot", "aria-hidden": "true" }), label);
  const notice = h("p", { class: "recording-notice", role: "alert" });
  let byServer: Phase = "off";
  // After a stop the recorder stays in the room while it finishes the file, and LiveKit still
  // counts the room as recorded: the server's word wins until LiveKit's flag drops.
  let stoppedByServer = false;
  let layout: "grid" | "audio" = "grid";
  /** The server's word: the capturing recording writes each person's audio for the meeting's transcript. */
  let transcribed = false;
  let noticeTimer: number | undefined;
  const listeners = new Set<(state: { recording: boolean; mode: RoomRecordingState["mode"] }) => void>();
  let mode: RoomRecordingState["mode"] = "off";

  const isTranscribed = () => transcribed && byServer === "capturing";
  const phase = (): Phase => (byServer !== "off" ? byServer : room.isRecording && !stoppedByServer ? "starting" : "off");
  function render() {
    const now = phase();
    element.hidden = now === "off";
    element.dataset.phase = now;
    const what = layout === "audio" ? "Recording audio" : "Recording";
    label.textContent = now === "starting" ? "Starting…" : isTranscribed() ? `${what} · Transcribing` : what;
    element.dataset.transcribed = String(isTranscribed());
    for (const listener of listeners) listener({ recording: now !== "off", mode });
  }
  function say(text: string) {
    announce(text);
    notice.textContent = text;
    window.clearTimeout(noticeTimer);
    noticeTimer = window.setTimeout(() => (notice.textContent = ""), 8_000);
  }
  const words: Record<Phase, string> = {
    off: "The recording stopped.",
    starting: "A recording of this meeting is starting.",
    capturing: "This meeting is now being recorded.",
  };
  /** Renders the change, announcing a new phase (and transcription beginning or ending with it). */
  function changed(was: Phase, wasTranscribed = isTranscribed()) {
    if (isTranscribed() && !wasTranscribed) say("This meeting is now being recorded and transcribed.");
    else if (phase() !== was) say(words[phase()]);
    else if (wasTranscribed && !isTranscribed()) say("The transcription stopped.");
    render();
  }
  function apply(next: Phase, nextTranscribed = false) {
    const was = phase();
    const wasTranscribed = isTranscribed();
    byServer = next;
    stoppedByServer = next === "off";
    transcribed = next === "capturing" && nextTranscribed;
    changed(was, wasTranscribed);
  }
  async function askServer() {
    const answer = await api.recording();
    if (!answer.ok) return;
    mode = answer.body.mode;
    if (answer.body.layout) layout = answer.body.layout;
    apply(answer.body.capturing ? "capturing" : answer.body.recording ? "starting" : "off", answer.body.transcribed);
  }

  const onLiveKitFlag = () => {
    const was = phase();
    if (!room.isRecording) stoppedByServer = false;
    // A recorder joined while the server's word says otherwise (a packet missed): ask it.
    else if (byServer !== "capturing") void askServer();
    changed(was);
  };
  room.on(RoomEvent.RecordingStatusChanged, onLiveKitFlag);
  void askServer();

  return {
    element,
    notice,
    /** A `svc.recording` packet from the server. */
    notify(packet: RecordingNotice) {
      if (packet.type !== "stopped") layout = packet.layout;
      // A late `started` does not take back a `capturing` (nor what it said about transcription).
      if (packet.type === "capturing") apply("capturing", packet.transcribed);
      else apply(packet.type === "stopped" ? "off" : byServer === "capturing" ? "capturing" : "starting", packet.type === "started" && transcribed);
    },
    /** The host control follows the same state. */
    onChange(listener: (state: { recording: boolean; mode: RoomRecordingState["mode"] }) => void) {
      listeners.add(listener);
      listener({ recording: phase() !== "off", mode });
    },
    /** A host's own start (the recorder is starting) or stop, confirmed by the API before the packet arrives. */
    set(next: boolean) {
      apply(next ? (byServer === "capturing" ? "capturing" : "starting") : "off", next && transcribed);
    },
    dispose() {
      window.clearTimeout(noticeTimer);
      room.off(RoomEvent.RecordingStatusChanged, onLiveKitFlag);
    },
  };
}

export type RecordingIndicator = ReturnType<typeof createRecordingIndicator>;
