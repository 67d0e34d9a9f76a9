import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import type { EgressInfo } from "livekit-server-sdk";
import { type Logger } from "@svc/platform";
import { inTransaction, type Pool, type PoolClient } from "@svc/platform/db";
import { errorMetadata, type RecordingFailureCode } from "@svc/platform/contract";
import { getMeeting, type StoredMeeting } from "../db/meetings.ts";
import { insertOutboxEvent, type OutboxEvent } from "../db/outbox.ts";
import {
  activeRecordingOf,
  claimRecording,
  deleteRecordingRow,
  markFailed,
  markCapturing,
  markProcessing,
  markReady,
  markRecorderStarted,
  meetingsAwaitingAutoRecording,
  noteRecorderSeen,
  recordingByEgress,
  recordingsPastRetention,
  releaseClaim,
  unfinishedRecordings,
  type FinishedFile,
  type RecordingLayout,
  type RecordingStarter,
  type StoredRecording,
} from "../db/recordings.ts";
import { recordingFailedEvent, recordingReadyEvent, recordingStartedEvent } from "../meeting-events.ts";
import { captureStart, isStarting, outcomeOf, RecorderUnavailable, RoomNotOpen, type Recorder } from "./recorder.ts";
import type { RecordingStorage } from "./recording-storage.ts";
import type { SpeakerTracks } from "./speaker-tracks.ts";

/** What the room's pages hear on topic `svc.recording` (gateway/web/meeting-room/room/recording-indicator.ts). */
/**
 * `started`: the recorder accepted and is starting (the room says "Starting…"); `capturing`: it
 * reports the run active, the room's media is being written ("Recording"); `stopped`.
 */
export type RecordingNotice =
  | { type: "started"; recordingId: string; layout: RecordingLayout }
  | { type: "capturing"; recordingId: string; layout: RecordingLayout }
  | { type: "stopped"; recordingId: string };

export interface RecordingsDependencies {
  pool: Pool;
  recorder: Recorder;
  storage: RecordingStorage;
  /** Wakes the outbox relay after a transaction wrote events. */
  outboxWritten: () => void;
  /** Tells everyone in the meeting's room (a server data packet); best effort. */
  notifyRoom: (meetingId: string, notice: RecordingNotice) => Promise<void>;
  logger: Logger;
  retryAfterSeconds: number;
  startTimeoutSeconds: number;
  /** A recording whose recorder stayed out of the room this long has failed. */
  lostAfterMs: number;
  /** A stopped recording whose file is not finished after this long has failed. */
  finishTimeoutMs: number;
  /** Each speaker's own audio beside the recording, for its transcript (speaker-tracks.ts). */
  speakerTracks: Pick<SpeakerTracks, "recordingCapturing" | "recordingEnded" | "removeFilesOf">;
}

const refused = (message: string) => new ConnectError(message, Code.FailedPrecondition);

/**
 * How long a run may stay STARTING (its recorder loading the room's page and joining) before its
 * absence from the room counts: on a busy machine joining takes far longer than the 1-3 s it
 * takes on an idle one.
 */
const START_GRACE_MS = 60_000;

/**
 * Recordings of meeting rooms (docs/meeting-room.md, "Recording"): starting (the meeting's
 * setting allows it, someone is in the room, one recording at a time, a recorder with capacity
 * accepts within the start timeout), stopping, and following each run to its end from
 * livekit-server's egress webhooks and a watchdog, so a recording never stays `recording` when
 * its recorder is gone. Every change of state writes its event (recording.started, .ready,
 * .failed) to the outbox in the same transaction, once: the state changes only from a state
 * that allows it.
 */
export function createRecordings(deps: RecordingsDependencies) {
  const { pool, recorder, storage, logger } = deps;

  async function withEvents<T>(change: (client: PoolClient, emit: (event: OutboxEvent) => void) => Promise<T>): Promise<T> {
    const events: OutboxEvent[] = [];
    const result = await inTransaction(pool, async (client) => {
      const value = await change(client, (event) => events.push(event));
      for (const event of events) await insertOutboxEvent(client, event);
      return value;
    });
    if (events.length > 0) deps.outboxWritten();
    return result;
  }

  // The speaker tracks follow the recording; their failures never change the recording itself.
  const tracksFollow = (what: string, recording: StoredRecording, follow: (recording: StoredRecording) => Promise<void>) =>
    void follow(recording).catch((error: unknown) => logger.warn({ err: error, recordingId: recording.id }, `speaker tracks: ${what} failed`));

  const tell = (meetingId: string, notice: RecordingNotice) =>
    void deps.notifyRoom(meetingId, notice).catch((error: unknown) => logger.warn({ err: error, meetingId }, "could not tell the room about its recording"));

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
   * recording's `startedAt`), and the room's indicator turns from "Starting…" to "Recording".
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
    tell(capturing.meetingId, { type: "capturing", recordingId: capturing.id, layout: capturing.layout });
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

  /**
   * Starts recording a meeting's room: the meeting is claimed first (one recording at a time),
   * then the recorder is asked, with the start timeout; a refusal gives the claim back.
   */
  async function start(meeting: StoredMeeting, layout: RecordingLayout, startedBy: RecordingStarter): Promise<StoredRecording> {
    if (meeting.settings.recording === "off") throw refused("Recording is off for this meeting: set its recording setting to manual or auto first");
    if (meeting.status === "ended" || meeting.status === "cancelled")
      throw refused(`Meeting has ${meeting.status === "ended" ? "ended" : "been cancelled"}: it cannot be recorded`);
    if (meeting.status !== "live") throw refused("Nobody is in the meeting room yet: a recording can start once someone has joined");
    const id = randomUUID();
    const claimed = await claimRecording(pool, {
      id,
      meetingId: meeting.id,
      orgId: meeting.orgId,
      layout,
      startedBy,
      storage: storage.kind,
      objectKey: `${id}.mp4`,
    });
    if (!claimed) throw new ConnectError("This meeting is being recorded already: stop that recording first", Code.FailedPrecondition);
    let egressId: string;
    try {
      egressId = await recorder.start(meeting.id, layout, storage.output(claimed.objectKey));
    } catch (error) {
      await releaseClaim(pool, id);
      if (error instanceof RoomNotOpen) throw refused("Nobody is in the meeting room: a recording can start once someone has joined");
      if (!(error instanceof RecorderUnavailable)) throw error;
      logger.warn({ meetingId: meeting.id, reason: error.message }, "the recorder refused or did not answer a start");
      throw new ConnectError(
        `No recorder has capacity for this recording now (it refused or did not answer within ${deps.startTimeoutSeconds} s): try again in ${deps.retryAfterSeconds} seconds`,
        Code.Unavailable,
        { [errorMetadata.retryAfter]: String(deps.retryAfterSeconds) },
      );
    }
    const started = await withEvents(async (client, emit) => {
      const updated = await markRecorderStarted(client, id, egressId);
      if (updated) emit(recordingStartedEvent(updated));
      return updated;
    });
    if (!started) throw new ConnectError("The recording ended as it started", Code.Aborted);
    logger.info({ recordingId: id, meetingId: meeting.id, egressId, layout, startedBy }, "recording started");
    tell(meeting.id, { type: "started", recordingId: id, layout });
    return started;
  }

  return {
    start,

    stop,

    /** The meeting ended: its recording in progress stops (the file is finished and becomes ready). */
    async stopAllOf(meetingId: string): Promise<void> {
      const active = await activeRecordingOf(pool, meetingId);
      if (active) await stop(active);
    },

    /** A recording and its file are deleted; one that is not finished is refused (its file is still being written). */
    async remove(recording: StoredRecording): Promise<void> {
      if (recording.status === "recording" || recording.status === "processing")
        throw refused("This recording is not finished: stop it and wait until it is ready or failed before deleting it");
      await deps.speakerTracks.removeFilesOf(recording.id);
      await storage.remove(recording.objectKey);
      await deleteRecordingRow(pool, recording.id);
    },

    /** livekit-server's egress webhooks (egress_started, egress_updated, egress_ended). */
    async egressNotified(info: EgressInfo): Promise<void> {
      const recording = await recordingByEgress(pool, info.egressId);
      if (!recording || (recording.status !== "recording" && recording.status !== "processing")) return;
      await applyInfo(recording, info);
    },

    /**
     * The watchdog: each run not finished is compared with the recorder. An end that no webhook
     * reported is applied; a recorder that has been out of the meeting's room for `lostAfterMs`
     * (its process died: egress stops entirely on a failed run) fails its recording; a stopped
     * run whose file never came fails after `finishTimeoutMs`.
     */
    async watch(): Promise<void> {
      for (const recording of await unfinishedRecordings(pool, 100)) {
        const egressId = recording.egressId!;
        const info = await recorder.info(egressId).catch((error: unknown) => {
          logger.warn({ err: error, recordingId: recording.id }, "watchdog: could not ask the media server about a recording");
          return null;
        });
        if (info === null) continue; // the media server is unreachable: nothing can be judged now
        if (info && outcomeOf(info).state !== "running") {
          await applyInfo(recording, info);
          continue;
        }
        if (info) await noteCapture(recording, info); // in case its webhook was lost
        if (recording.status === "processing") {
          if (recording.endedAt && Date.now() - recording.endedAt.getTime() > deps.finishTimeoutMs) await fail(recording, "finish_timeout");
          continue;
        }
        if (info && isStarting(info) && Date.now() - recording.startedAt.getTime() < Math.max(START_GRACE_MS, deps.lostAfterMs)) continue;
        const present = info ? await recorder.inRoom(recording.meetingId, egressId).catch(() => null) : false;
        if (present === null) continue;
        const missingSince = await noteRecorderSeen(pool, recording.id, present === true);
        if (missingSince && Date.now() - missingSince.getTime() >= deps.lostAfterMs) {
          await recorder.stop(egressId).catch(() => undefined); // tidy the media server's record of the run
          await fail(recording, "recorder_lost");
        }
      }
    },

    /** Live meetings set to `auto` that have had no automatic recording get one (retried while no recorder has capacity). */
    async startAutomaticRecordings(): Promise<void> {
      for (const { id } of await meetingsAwaitingAutoRecording(pool, 20)) {
        const meeting = await getMeeting(pool, id);
        if (!meeting) continue;
        try {
          await start(meeting, "grid", "auto");
        } catch (error) {
          const reason = error instanceof ConnectError ? error.rawMessage : String(error);
          logger.info({ meetingId: id, reason }, "automatic recording not started yet");
        }
      }
    },

    /** Retention: recordings that ended more than `days` ago are deleted with their files. Returns how many. */
    async purgeExpired(days: number): Promise<number> {
      let removed = 0;
      for (const recording of await recordingsPastRetention(pool, days, 100)) {
        await deps.speakerTracks.removeFilesOf(recording.id);
        await storage.remove(recording.objectKey);
        if (await deleteRecordingRow(pool, recording.id)) removed++;
      }
      return removed;
    },
  };
}

export type Recordings = ReturnType<typeof createRecordings>;
