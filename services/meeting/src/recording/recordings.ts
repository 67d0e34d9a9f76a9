import { ConnectError } from "@connectrpc/connect";
import type { EgressInfo } from "livekit-server-sdk";
import { getMeeting } from "../db/meetings.ts";
import { activeRecordingOf, deleteRecordingRow, meetingsAwaitingAutoRecording, recordingByEgress, recordingsPastRetention } from "../db/recordings.ts";
import type { StoredRecording } from "../recording-store.ts";
import { recordingChanges, type RecordingsDependencies } from "./recording-changes.ts";
import { recordingOutcomes } from "./recording-outcomes.ts";
import { recordingStart, refused } from "./recording-start.ts";
import { recordingWatchdog } from "./recording-watchdog.ts";

/**
 * Recordings of meeting rooms (docs/meeting-room.md, "Recording"): starting (recording-start.ts),
 * stopping, and following each run to its end (recording-outcomes.ts) from livekit-server's
 * egress webhooks and a watchdog (recording-watchdog.ts), so a recording never stays `recording`
 * when its recorder is gone. Every change of state writes its event (recording.started, .ready,
 * .failed) to the outbox in the same transaction, once (recording-changes.ts): the state changes
 * only from a state that allows it.
 */
export function createRecordings(deps: RecordingsDependencies) {
  const { pool, storage, logger } = deps;
  const changes = recordingChanges(deps);
  const outcomes = recordingOutcomes(deps, changes);
  const start = recordingStart(deps, changes);
  const { stop, applyInfo } = outcomes;

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

    watch: recordingWatchdog(deps, outcomes),

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
