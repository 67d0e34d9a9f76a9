// The transcription worker process (docs/transcription.md, "Jobs"): leases transcription jobs from
// the meeting schema and transcribes them piece by piece with the Python worker. It runs no
// migrations (the meeting service owns the schema) and serves nothing.
import { createLogger, loadConfigOrExit } from "@svc/platform";
import { createPool } from "@svc/platform/db";
import { DEFAULT_RECORDING_DIR } from "../config.ts";
import { s3RecordingStorage } from "../recording/recording-storage-s3.ts";
import { recordingAudio } from "./audio-files.ts";
import { startTranscriptionWorker } from "./transcription-worker.ts";
import { workerConfigSchema } from "./worker-config.ts";

const config = loadConfigOrExit("transcriber", workerConfigSchema);
const logger = createLogger("transcriber", config.LOG_LEVEL);
const pool = createPool({ databaseUrl: config.DATABASE_URL, schema: "meeting", logger, max: config.TRANSCRIBER_CONCURRENCY + 2 });

/** The meeting service's S3 storage with the same reading pair; the worker only reads (HEAD and GET). */
function s3Storage() {
  if (config.RECORDING_STORAGE !== "s3") return undefined;
  const reading = { accessKeyId: config.RECORDING_S3_ACCESS_KEY_ID!, secretAccessKey: config.RECORDING_S3_SECRET_ACCESS_KEY! };
  return s3RecordingStorage({
    endpoint: config.RECORDING_S3_ENDPOINT!.replace(/\/+$/, ""),
    bucket: config.RECORDING_S3_BUCKET!,
    region: config.RECORDING_S3_REGION,
    ...reading,
    // The recorder's pair is for uploads, which the worker never makes.
    upload: reading,
    forcePathStyle: config.RECORDING_S3_FORCE_PATH_STYLE,
  });
}

const worker = startTranscriptionWorker({
  pool,
  logger,
  transcriber: { python: config.TRANSCRIBER_PYTHON, pieceSeconds: config.TRANSCRIBER_PIECE_SECONDS, threads: config.TRANSCRIBER_THREADS },
  concurrency: config.TRANSCRIBER_CONCURRENCY,
  leaseMs: config.TRANSCRIBER_LEASE_MS,
  maxAttempts: config.TRANSCRIBER_MAX_ATTEMPTS,
  retryAfterMs: config.TRANSCRIBER_RETRY_AFTER_MS,
  pollMs: config.TRANSCRIBER_POLL_MS,
  audio: recordingAudio({ dir: config.RECORDING_DIR ?? DEFAULT_RECORDING_DIR, s3: s3Storage() }),
});
logger.info({ concurrency: config.TRANSCRIBER_CONCURRENCY, pieceSeconds: config.TRANSCRIBER_PIECE_SECONDS }, "transcription worker started");

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  void worker
    .stop()
    .then(() => pool.end())
    .then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "transcription worker: stop failed");
        process.exit(1);
      },
    );
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
// Started by a supervisor with an IPC channel (npm start, scripts/supervision.ts): its end closes
// when the supervisor is gone, however it went; the worker never outlives the one that owns it.
if (process.channel) {
  process.channel.unref();
  process.once("disconnect", stop);
}
