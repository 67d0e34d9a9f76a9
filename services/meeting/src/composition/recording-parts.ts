import type { RoomServiceClient } from "livekit-server-sdk";
import type { Logger } from "@svc/platform";
import type { Pool } from "@svc/platform/db";
import type { Config } from "../config.ts";
import { createAccessLinks } from "../recording/access-links.ts";
import { createRecorder } from "../recording/recorder.ts";
import { createRecordings } from "../recording/recordings.ts";
import { createSpeakerTracks } from "../recording/speaker-tracks.ts";
import type { RecordingStorage } from "../recording/recording-storage.ts";
import { filesystemRecordingStorage } from "../recording/recording-storage-filesystem.ts";
import { s3RecordingStorage } from "../recording/recording-storage-s3.ts";
import { ROOM_TOPICS, type RoomActions } from "../room/room-actions.ts";

/**
 * Recordings (LiveKit Egress through livekit-server's API), each speaker's own audio beside them
 * (for transcripts), where their files are stored, and the links that let a holder download a
 * recording or a transcript.
 */
export async function createRecordingParts(deps: {
  config: Config;
  pool: Pool;
  rooms: RoomServiceClient;
  actions: RoomActions;
  outboxWritten: () => void;
  logger: Logger;
}) {
  const { config, logger } = deps;
  if (config.recording.s3?.uploadsWithReadingPair)
    logger.warn(
      "RECORDING_S3_UPLOAD_ACCESS_KEY_ID is not set: the recorder uploads with the key pair that reads and deletes recordings (set an upload-only pair; required in production)",
    );
  const storage = await openRecordingStorage(config, logger);
  const recorder = createRecorder({ ...config.livekit, startTimeoutSeconds: config.RECORDING_START_TIMEOUT_SECONDS, rooms: deps.rooms });
  const speakerTracks = createSpeakerTracks({ pool: deps.pool, recorder, storage, logger });
  const recordings = createRecordings({
    pool: deps.pool,
    recorder,
    speakerTracks,
    storage,
    outboxWritten: deps.outboxWritten,
    notifyRoom: (meetingId, notice) => deps.actions.broadcast(meetingId, ROOM_TOPICS.recording, notice),
    logger,
    retryAfterSeconds: config.RECORDING_RETRY_AFTER_SECONDS,
    startTimeoutSeconds: config.RECORDING_START_TIMEOUT_SECONDS,
    lostAfterMs: config.RECORDING_LOST_AFTER_SECONDS * 1_000,
    finishTimeoutMs: config.RECORDING_FINISH_TIMEOUT_SECONDS * 1_000,
  });
  return {
    storage,
    recordings,
    speakerTracks,
    accessLinks: createAccessLinks(config.recording.linkSecret),
    transcriptLinks: createAccessLinks(config.recording.linkSecret, "transcript"),
    /** Stops a meeting's recordings as it ends (the files finish and become ready); a failure is logged. */
    stopRecordingsOf: (meetingId: string) =>
      recordings.stopAllOf(meetingId).catch((error: unknown) => logger.warn({ err: error, meetingId }, "could not stop the recording of an ended meeting")),
  };
}

export type RecordingParts = Awaited<ReturnType<typeof createRecordingParts>>;

/** S3 when configured, else the recording folder. */
async function openRecordingStorage(config: Config, logger: Logger): Promise<RecordingStorage> {
  if (config.recording.s3) return s3RecordingStorage(config.recording.s3);
  const folder = filesystemRecordingStorage({ dir: config.recording.dir, egressDir: config.recording.egressDir });
  // A folder that cannot be made (a read-only root filesystem, as in the chart's pods when
  // recording is off and no volume is mounted) stops recordings, not the meeting service.
  await folder
    .prepare()
    .catch((error: unknown) =>
      logger.warn({ err: error, dir: config.recording.dir }, "recording folder unavailable: recordings cannot be stored until it can be created"),
    );
  return folder;
}
