// The transcription worker process (docs/transcription.md, "Jobs"): leases transcription jobs from
// the meeting schema and transcribes them piece by piece with the Python worker. It runs no
// migrations (the meeting service owns the schema) and serves nothing.
import { createLogger, loadConfigOrExit } from "@svc/platform";
import { createPool } from "@svc/platform/db";
import { DEFAULT_RECORDING_DIR } from "../config.ts";
import { filesystemAudio } from "./audio-files.ts";
import { startTranscriptionWorker } from "./transcription-worker.ts";
import { workerConfigSchema } from "./worker-config.ts";

const config = loadConfigOrExit("transcriber", workerConfigSchema);
const logger = createLogger("transcriber", config.LOG_LEVEL);
const pool = createPool({ databaseUrl: config.DATABASE_URL, schema: "meeting", logger, max: config.TRANSCRIBER_CONCURRENCY + 2 });

const worker = startTranscriptionWorker({
  pool,
  logger,
  transcriber: { python: config.TRANSCRIBER_PYTHON, pieceSeconds: config.TRANSCRIBER_PIECE_SECONDS, threads: config.TRANSCRIBER_THREADS },
  concurrency: config.TRANSCRIBER_CONCURRENCY,
  leaseMs: config.TRANSCRIBER_LEASE_MS,
  maxAttempts: config.TRANSCRIBER_MAX_ATTEMPTS,
  retryAfterMs: config.TRANSCRIBER_RETRY_AFTER_MS,
  pollMs: config.TRANSCRIBER_POLL_MS,
  audioPath: filesystemAudio(config.RECORDING_DIR ?? DEFAULT_RECORDING_DIR),
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
