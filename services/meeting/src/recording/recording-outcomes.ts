import type { EgressInfo } from "livekit-server-sdk";
import type { RecordingFailureCode } from "@svc/platform/contract";
import { markCapturing, markFailed, markProcessing, markReady, type FinishedFile } from "../db/recordings.ts";
import type { StoredRecording } from "../recording-store.ts";
import { recordingFailedEvent, recordingReadyEvent } from "../meeting-events.ts";
import { captureStart, outcomeOf } from "./recorder.ts";
import type { RecordingChanges, RecordingsDependencies } from "./recording-changes.ts";

/**
 * How a run goes on once started: capture begins, it is stopped, its file is finished (ready) or
 * it fails. Each change happens only from a state that allows it, and writes its event once.
 */
export function recordingOutcomes(deps: RecordingsDependencies, { withEvents, tell }: RecordingChanges) {
  const { pool, recorder, storage, logger } = deps;

  // The speaker tracks follow the recording; their failures never change the recording itself.
  const tracksFollow = (what: string, recording: StoredRecording, follow: (recording: StoredRecording) => Promise<void>) =>
    void follow(recording).catch((error: unknown) => logger.warn({ err: error, recordingId: recording.id }, `speaker tracks: ${what} failed`));

  async function finish(recording: StoredRecording, file: FinishedFile): Promise<StoredRecording | undefined> {
    // The size of what is really stored (the recorder's figure is what it wrote; storage has the last word).
    const stored = await storage.size(recording.objectKey).catch((error: unknown) => {
      logger.warn({ err: error, recordingId: recording.id }, "could not measure a finished recording's file");
      return file.sizeBytes;
    });
    if (stored === undefined) return fail(recording, "storage_failed", "the recorder reported a file that is not in the recordings storage");
    const ready = await withEvents(async (client, emit) => {
      const updated = await markReady(client, recording.id, { ...file, sizeBytes: stored });
      if (updated) emit(recordingReadyEvent(updated));
      return updated;
    });
    if (ready) {
      logger.info({ recordingId: ready.id, meetingId: ready.meetingId, durationMs: ready.durationMs, sizeBytes: ready.sizeBytes }, "recording ready");
      tell(ready.meetingId, { type: "stopped", recordingId: ready.id });
      tracksFollow("the recording's end", ready, deps.speakerTracks.recordingEnded);
    }
    return ready;
  }

  /** `code` (and our words for it) is what the tenant reads; `detail` (the recorder's own text) goes to our log only. */
  async function fail(recording: StoredRecording, code: RecordingFailureCode, detail?: string): Promise<StoredRecording | undefined> {
    const failed = await withEvents(async (client, emit) => {
      const updated = await markFailed(client, recording.id, code);
      if (updated) emit(recordingFailedEvent(updated));
      return updated;
    });
    if (failed) {
      logger.warn({ recordingId: failed.id, meetingId: failed.meetingId, errorCode: code, recorderError: detail }, "recording failed");
      tell(failed.meetingId, { type: "stopped", recordingId: failed.id });
      tracksFollow("the recording's end", failed, deps.speakerTracks.recordingEnded);
    }
    return failed;
  }

  /**
   * The recorder reports the run active: capture began (at its own time, which becomes the
   * recording's `startedAt`), and the room's indicator turns from "Starting…" to "Recording"
   * ("Recording · Transcribing" when the meeting is transcribed: its speaker tracks start now).
   */
  async function noteCapture(recording: StoredRecording, info: EgressInfo): Promise<void> {
    const began = captureStart(info);
    if (!began || recording.capturing || recording.status !== "recording") return;
    const capturing = await markCapturing(pool, recording.id, began);
    if (!capturing) return;
    logger.info(
      { recordingId: capturing.id, meetingId: capturing.meetingId, captureDelayMs: began.getTime() - recording.startedAt.getTime() },
      "recording capturing",
    );
    const transcribed = await deps.speakerTracks.transcribed(capturing.meetingId).catch((error: unknown) => {
      logger.warn({ err: error, meetingId: capturing.meetingId }, "could not read whether the meeting is transcribed");
      return false;
    });
    tell(capturing.meetingId, { type: "capturing", recordingId: capturing.id, layout: capturing.layout, transcribed });
    tracksFollow("the recording's capture", capturing, deps.speakerTracks.recordingCapturing);
  }

  /** Applies what the recorder says about a run (a webhook's or the API's EgressInfo). */
  async function applyInfo(recording: StoredRecording, info: EgressInfo): Promise<void> {
    await noteCapture(recording, info);
    const outcome = outcomeOf(info);
    if (outcome.state === "complete") await finish(recording, outcome);
    else if (outcome.state === "failed") await fail(recording, outcome.code, outcome.detail);
  }

  async function stop(recording: StoredRecording): Promise<StoredRecording> {
    if (recording.status !== "recording" || !recording.egressId) return recording;
    const processing = (await markProcessing(pool, recording.id)) ?? recording;
    try {
      await recorder.stop(recording.egressId);
    } catch (error) {
      // The recorder that holds the run cannot be reached: it is gone, and so is the recording.
      logger.warn({ err: error, recordingId: recording.id }, "could not stop a recording");
      return (await fail(processing, "recorder_unavailable")) ?? processing;
    }
    tell(recording.meetingId, { type: "stopped", recordingId: recording.id });
    tracksFollow("the recording's stop", processing, deps.speakerTracks.recordingEnded);
    return processing;
  }

  return { fail, noteCapture, applyInfo, stop };
}

export type RecordingOutcomes = ReturnType<typeof recordingOutcomes>;
