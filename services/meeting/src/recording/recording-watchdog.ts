import { noteRecorderSeen, unfinishedRecordings } from "../db/recordings.ts";
import { isStarting, outcomeOf } from "./recorder.ts";
import type { RecordingsDependencies } from "./recording-changes.ts";
import type { RecordingOutcomes } from "./recording-outcomes.ts";

/**
 * How long a run may stay STARTING (its recorder loading the room's page and joining) before its
 * absence from the room counts: on a busy machine joining takes far longer than the 1-3 s it
 * takes on an idle one.
 */
const START_GRACE_MS = 60_000;

/**
 * The watchdog: each run not finished is compared with the recorder. An end that no webhook
 * reported is applied; a recorder that has been out of the meeting's room for `lostAfterMs`
 * (its process died: egress stops entirely on a failed run) fails its recording; a stopped
 * run whose file never came fails after `finishTimeoutMs`.
 */
export function recordingWatchdog(deps: RecordingsDependencies, { applyInfo, noteCapture, fail }: RecordingOutcomes) {
  const { pool, recorder, logger } = deps;

  return async function watch(): Promise<void> {
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
  };
}
