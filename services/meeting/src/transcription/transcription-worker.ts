import type { Logger } from "@svc/platform";
import type { Pool } from "@svc/platform/db";
import { completePiece, failPiece, leaseJob, renewLease, type LeasedJob } from "../db/transcription-jobs.ts";
import { transcriptEvents } from "../meeting-events.ts";
import { AudioUnreadable, type LocalAudio } from "./audio-files.ts";
import { PieceFailed, transcribePiece, type TranscriberOptions } from "./transcriber-process.ts";

export interface TranscriptionWorkerOptions {
  pool: Pool;
  logger: Logger;
  transcriber: TranscriberOptions;
  /** Jobs transcribed at once by this worker (each piece takes the model's threads). */
  concurrency: number;
  /** A lease lasts this long and is renewed every third of it while the piece runs; a dead worker's job is free again after it. */
  leaseMs: number;
  /** Leases of one piece before its job (and transcript) fails. */
  maxAttempts: number;
  /** A failed piece is tried again after this long. */
  retryAfterMs: number;
  /** How often an idle worker looks for a job. */
  pollMs: number;
  /** A job's audio as a local file, for one piece (audio-files.ts). */
  audio: (job: LeasedJob) => Promise<LocalAudio>;
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * The transcription worker's loop (docs/transcription.md, "Jobs"): lease a job, transcribe its
 * next piece in a child process while renewing the lease, store the piece and move the job on in
 * one transaction, repeat. `concurrency` loops run side by side. stop() kills the pieces under way;
 * their jobs are leased again (by this worker or another) once their leases expire.
 */
export function startTranscriptionWorker(options: TranscriptionWorkerOptions): { stop: () => Promise<void> } {
  const { pool, logger } = options;
  const stopping = new AbortController();

  /** A job whose audio no retry can read fails at once; a failed download (S3) is tried again like a failed piece. */
  async function audioOf(job: LeasedJob): Promise<LocalAudio> {
    try {
      return await options.audio(job);
    } catch (error) {
      throw new PieceFailed(error instanceof Error ? error.message : String(error), "audio_unreadable", error instanceof AudioUnreadable);
    }
  }

  async function runPiece(job: LeasedJob): Promise<void> {
    const renewal = setInterval(() => {
      void renewLease(pool, job, options.leaseMs).then(
        (held) => held || logger.warn({ jobId: job.id }, "transcription lease lost while its piece ran"),
        (error: unknown) => logger.warn({ err: error, jobId: job.id }, "could not renew a transcription lease"),
      );
    }, options.leaseMs / 3);
    let audio: LocalAudio | undefined;
    try {
      audio = await audioOf(job);
      const piece = await transcribePiece(options.transcriber, audio.path, job.nextStart, stopping.signal);
      const outcome = await completePiece(pool, job, piece, transcriptEvents);
      logger.info({ jobId: job.id, transcriptId: job.transcriptId, start: job.nextStart, segments: piece.segments.length, outcome }, "transcribed a piece");
    } catch (error) {
      if (stopping.signal.aborted) return; // the lease expires; the piece is done again after the restart
      const failure = error instanceof PieceFailed ? error : new PieceFailed(String(error), "transcriber_failed", false);
      const final = failure.permanent || job.attempt >= options.maxAttempts;
      const outcome = await failPiece(pool, job, { code: failure.code, final, retryAfterMs: options.retryAfterMs }, transcriptEvents);
      logger.warn(
        {
          jobId: job.id,
          transcriptId: job.transcriptId,
          start: job.nextStart,
          attempt: job.attempt,
          errorCode: failure.code,
          reason: failure.message,
          outcome,
        },
        "a transcription piece failed",
      );
    } finally {
      clearInterval(renewal);
      await audio?.release();
    }
  }

  async function loop(): Promise<void> {
    while (!stopping.signal.aborted) {
      try {
        const job = await leaseJob(pool, { leaseMs: options.leaseMs, maxAttempts: options.maxAttempts, events: transcriptEvents });
        if (job) await runPiece(job);
        else await pause(options.pollMs, stopping.signal);
      } catch (error) {
        if (stopping.signal.aborted) return;
        logger.warn({ err: error }, "transcription worker: could not lease or store a piece");
        await pause(options.pollMs, stopping.signal);
      }
    }
  }

  const loops = Array.from({ length: options.concurrency }, () => loop());
  return {
    async stop() {
      stopping.abort();
      await Promise.all(loops);
    },
  };
}
