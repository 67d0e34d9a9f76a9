import { h } from "../../shared/dom.ts";
import type { RoomApi } from "../room-api.ts";
import type { RecordingIndicator } from "../room/recording-indicator.ts";
import type { PanelFeedback } from "./panel-tools.ts";

/**
 * A host's recording control: the layout (the whole room, or audio only) and Start / Stop
 * recording. Shown when the meeting may be recorded (its setting is manual or auto); the server
 * decides (a refusal, such as no recording capacity, is shown in its own words).
 */
export function createRecordingControl(api: RoomApi, indicator: RecordingIndicator, feedback: PanelFeedback) {
  const layout = h(
    "select",
    { id: "recording-layout", class: "recording-layout" },
    h("option", { value: "grid" }, "Whole room (video and audio)"),
    h("option", { value: "audio" }, "Audio only"),
  );
  const button = h("button", { type: "button", class: "button small danger" }, "Start recording");
  const element = h(
    "section",
    { class: "panel-section recording-control", "aria-labelledby": "recording-heading", hidden: true },
    h("h3", { id: "recording-heading" }, "Recording"),
    h("p", { class: "host-controls" }, h("label", { for: "recording-layout" }, "Layout"), layout, button),
  );
  let recording = false;
  let busy = false;

  indicator.onChange((state) => {
    recording = state.recording;
    element.hidden = state.mode === "off" && !state.recording;
    button.textContent = recording ? "Stop recording" : "Start recording";
    button.className = `button small ${recording ? "secondary" : "danger"}`;
    layout.disabled = recording;
  });

  button.addEventListener("click", async () => {
    if (busy) return;
    busy = true;
    button.disabled = true;
    const stopping = recording;
    feedback.say(stopping ? "Stopping the recording…" : "Starting the recording…");
    const result = stopping ? await api.stopRecording() : await api.startRecording(layout.value === "audio" ? "audio" : "grid");
    await feedback.act(
      stopping ? "The recording stopped: its file is being finished." : "Recording started: everyone in the meeting sees it.",
      Promise.resolve(result),
    );
    if (result.ok) indicator.set(!stopping);
    busy = false;
    button.disabled = false;
  });

  return { element };
}
