import { z } from "zod";
import { baseEnvSchema } from "@svc/platform";
import { recordingStorageEnv, REQUIRED_S3_VARIABLES } from "../config.ts";

/** The transcription worker's configuration (worker-main.ts; docs/transcription.md, "Jobs"). */
export const workerConfigSchema = z
  .object({
    DATABASE_URL: baseEnvSchema.shape.DATABASE_URL,
    LOG_LEVEL: baseEnvSchema.shape.LOG_LEVEL,
    /** The Python of the worker's virtual environment: `scripts/transcriber python` prints it (after `scripts/transcriber deps`). */
    TRANSCRIBER_PYTHON: z.string().min(1),
    /** Jobs this worker transcribes at once; each piece uses TRANSCRIBER_THREADS cores and about 0.6 GB. */
    TRANSCRIBER_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
    /** CPU threads of the speech model per piece. */
    TRANSCRIBER_THREADS: z.coerce.number().int().min(1).max(64).default(2),
    /** Seconds of audio per piece (memory grows about 1 MB per second of a piece); at most 600, at least 20. */
    TRANSCRIBER_PIECE_SECONDS: z.coerce.number().int().min(20).max(600).default(300),
    /** A job's lease, renewed every third of it while its piece runs: a dead worker's job is taken up again after this long. */
    TRANSCRIBER_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
    /** Tries of one piece (failures, or deaths of its worker) before its transcript fails. */
    TRANSCRIBER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
    /** A failed piece is tried again after this long. */
    TRANSCRIBER_RETRY_AFTER_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
    /** How often an idle worker looks for a job. */
    TRANSCRIBER_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
    /** Where audio tracks are read: the meeting service's recording storage, the same values (RECORDING_STORAGE, RECORDING_DIR, RECORDING_S3_*). */
    ...recordingStorageEnv.shape,
  })
  .superRefine((env, context) => {
    if (env.RECORDING_STORAGE !== "s3") return;
    for (const variable of REQUIRED_S3_VARIABLES)
      if (env[variable] === undefined) context.addIssue({ code: "custom", path: [variable], message: "is required with RECORDING_STORAGE=s3" });
  });

export type WorkerConfig = z.output<typeof workerConfigSchema>;
