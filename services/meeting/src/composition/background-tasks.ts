import type { RoomServiceClient } from "livekit-server-sdk";
import { startPeriodicTask, type Logger } from "@svc/platform";
import { startRetention, type Pool } from "@svc/platform/db";
import type { Config } from "../config.ts";
import { purgeMeetingHistory } from "../db/retention.ts";
import { deleteTranscriptsPastRetention } from "../db/transcripts.ts";
import type { MeetingLifecycle } from "../room/meeting-lifecycle.ts";
import { createNoShowReporter } from "../room/no-show-reporter.ts";
import { createRoomReconciler } from "../room/room-reconciler.ts";
import type { RecordingParts } from "./recording-parts.ts";

/**
 * The meeting service's work on a schedule: ending meetings that are over, watching, starting and
 * expiring recordings (and transcripts), reconciling rooms with the media server, reporting no-shows, and retention.
 */
export function startBackgroundTasks(deps: {
  config: Config;
  pool: Pool;
  rooms: RoomServiceClient;
  lifecycle: MeetingLifecycle;
  recording: RecordingParts;
  outboxWritten: () => void;
  logger: Logger;
  roomLogger: Logger;
  recordingLogger: Logger;
}) {
  const { config, pool, lifecycle, roomLogger, recordingLogger } = deps;
  const { recordings, speakerTracks, stopRecordingsOf } = deps.recording;
  // Meetings that are over (emptied past the grace period, or past their planned end) are looked
  // for often (cheap: indexed queries); the grace period is the delay that matters, not this interval.
  const sweeper = startPeriodicTask(
    "end-due-meetings",
    Math.min(1_000, Math.max(100, config.MEETING_EMPTY_GRACE_SECONDS * 250)),
    async () => {
      // A meeting set to record stops recording when it ends (the file becomes ready).
      for (const meetingId of await lifecycle.endDueMeetings()) await stopRecordingsOf(meetingId);
    },
    roomLogger,
  );
  const recordingWatch = startPeriodicTask(
    "watch-recordings",
    config.RECORDING_WATCH_INTERVAL_MS,
    async () => {
      await recordings.watch();
      await speakerTracks.watch();
    },
    recordingLogger,
  );
  const autoRecordings = startPeriodicTask(
    "start-automatic-recordings",
    config.RECORDING_WATCH_INTERVAL_MS,
    recordings.startAutomaticRecordings,
    recordingLogger,
  );
  const recordingRetention = startPeriodicTask(
    "recording-retention",
    config.RECORDING_RETENTION_CHECK_INTERVAL_MS,
    async () => {
      if (config.RECORDING_RETENTION_DAYS === 0) return;
      const removed = await recordings.purgeExpired(config.RECORDING_RETENTION_DAYS);
      if (removed > 0) recordingLogger.info({ removed }, "retention: recordings past RECORDING_RETENTION_DAYS deleted with their files");
      // Transcripts are kept as long as recordings (issue 43: "retention like recordings"), counted from their completion.
      const transcriptsRemoved = await deleteTranscriptsPastRetention(pool, config.RECORDING_RETENTION_DAYS, 500);
      if (transcriptsRemoved > 0) recordingLogger.info({ removed: transcriptsRemoved }, "retention: transcripts past RECORDING_RETENTION_DAYS deleted");
    },
    recordingLogger,
  );
  const reconciler = startPeriodicTask(
    "reconcile-rooms",
    config.ROOM_RECONCILE_INTERVAL_MS,
    createRoomReconciler({ pool, rooms: deps.rooms, lifecycle, logger: roomLogger }),
    roomLogger,
  );
  const retention = startRetention((options) => purgeMeetingHistory(pool, options), deps.logger, {
    message: "retention: old outbox rows, webhook ids and idempotency keys removed",
  });
  // meeting.no_show, once per invited person who has not joined by then (across replicas).
  const noShows = startPeriodicTask(
    "report-no-shows",
    config.NO_SHOW_CHECK_INTERVAL_MS,
    createNoShowReporter({ pool, outboxWritten: deps.outboxWritten, logger: roomLogger }),
    roomLogger,
  );
  return {
    /** Looks for meetings to record at once (someone just entered one). */
    autoRecordings,
    /** Every task, to stop before the pool and the bus they use close. */
    all: [sweeper, recordingWatch, autoRecordings, recordingRetention, reconciler, noShows, retention],
  };
}
