import { randomUUID } from "node:crypto";
import { fromSnakeCaseRow, inTransaction, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import { insertOutboxEvent, type OutboxEvent } from "./outbox.ts";
import type { StoredTranscript, TranscriptionFailureCode } from "../transcript-store.ts";
import { transcriptById } from "./transcripts.ts";

export type AudioStorageKind = "filesystem" | "s3";

/** What storing a piece did: the lease was no longer the worker's (nothing stored), the job goes on, or the transcript became ready. */
export type PieceStored = "lease_lost" | "continues" | "ready";
/** What a failed piece did: nothing (the lease was lost), a retry later, or the job and its transcript failed. */
export type PieceFailure = "lease_lost" | "retrying" | "failed";

export interface AudioSource {
  storage: AudioStorageKind;
  objectKey: string;
  /** Where the audio's second 0 is on the transcript's time line. */
  offsetMs: number;
  /** Who speaks in it (a participant's own track); unnamed when absent, no e-mail unless an invited person's. */
  speaker?: { displayName: string; email?: string | null | undefined } | undefined;
}

/**
 * The events a transcript's end emits (meeting-events.ts builds them): written to the outbox in the
 * transaction that makes it ready or failed, so each is sent once.
 */
export interface TranscriptEvents {
  ready: (transcript: StoredTranscript) => OutboxEvent;
  failed: (transcript: StoredTranscript) => OutboxEvent;
}

async function emitEnd(client: PoolClient, transcriptId: string, build: (transcript: StoredTranscript) => OutboxEvent): Promise<void> {
  const transcript = await transcriptById(client, transcriptId);
  if (transcript) await insertOutboxEvent(client, build(transcript));
}

/** A job leased to one worker: its audio, where its next piece starts, and the lease that proves the worker still holds it. */
export interface LeasedJob extends AudioSource {
  id: string;
  transcriptId: string;
  nextStart: number;
  /** How many times this piece has been leased, this lease included. */
  attempt: number;
  leaseToken: string;
}

export interface TranscribedSegment {
  /** Seconds of the job's audio (the worker's times). */
  start: number;
  end: number;
  text: string;
  words: { start: number; end: number; word: string; probability: number }[];
}

/** A transcript to be made from these sources, one job each, queued. */
export async function createTranscript(pool: Pool, transcript: NewTranscript): Promise<string> {
  const id = transcript.id ?? randomUUID();
  await inTransaction(pool, (client) => insertTranscript(client, { ...transcript, id }));
  return id;
}

export interface NewTranscript {
  id?: string;
  meetingId: string;
  orgId: string;
  /** The recording whose speaker tracks are its sources: a recording has one transcript at most. */
  recordingId?: string;
  sources: AudioSource[];
}

/**
 * The transcript and its jobs, inside the caller's transaction. False when its recording has one
 * already (nothing is inserted): a recording is transcribed once.
 */
export async function insertTranscript(client: PoolClient, transcript: NewTranscript & { id: string }): Promise<boolean> {
  const { rowCount } = await client.query(
    `INSERT INTO transcripts (id, meeting_id, org_id, status, recording_id) VALUES ($1, $2, $3, 'processing', $4)
     ON CONFLICT (recording_id) WHERE recording_id IS NOT NULL DO NOTHING`,
    [transcript.id, transcript.meetingId, transcript.orgId, transcript.recordingId ?? null],
  );
  if (rowCount !== 1) return false;
  for (const [ordinal, source] of transcript.sources.entries())
    await client.query(
      `INSERT INTO transcription_jobs (id, transcript_id, storage, object_key, offset_ms, ordinal, speaker_name, speaker_email)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        randomUUID(),
        transcript.id,
        source.storage,
        source.objectKey,
        source.offsetMs,
        ordinal,
        source.speaker?.displayName ?? "",
        source.speaker?.email ?? null,
      ],
    );
  return true;
}

/** The fields of a leased job the table holds as they are (`attempts` selected as `attempt`). */
type LeasedColumns = Omit<LeasedJob, "offsetMs">;

/** Its row: the offset is a bigint column, which pg answers as a string. */
type LeasedRow = SnakeCaseRow<LeasedColumns> & { offset_ms: string };

/** The offset becomes a number (milliseconds of one recording, far below 2^53). */
const toLeasedJob = ({ offset_ms, ...columns }: LeasedRow): LeasedJob => ({ ...fromSnakeCaseRow<LeasedColumns>(columns), offsetMs: Number(offset_ms) });

/**
 * Leases the oldest queued job whose lease is free or expired (SKIP LOCKED: workers never wait
 * for each other), counting the attempt. A job whose current piece has already been leased
 * `maxAttempts` times (it failed, or its worker died, each time) fails instead, with its transcript.
 */
export async function leaseJob(pool: Pool, options: { leaseMs: number; maxAttempts: number; events: TranscriptEvents }): Promise<LeasedJob | undefined> {
  for (;;) {
    const outcome = await inTransaction(pool, async (client) => {
      const { rows } = await client.query<LeasedRow>(
        `UPDATE transcription_jobs j SET attempts = j.attempts + 1, lease_token = $1,
           leased_until = now() + $2::int * interval '1 millisecond', updated_at = now()
         FROM (SELECT id FROM transcription_jobs
               WHERE status = 'queued' AND (leased_until IS NULL OR leased_until <= now())
               ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) free
         WHERE j.id = free.id
         RETURNING j.id, j.transcript_id, j.storage, j.object_key, j.offset_ms, j.next_start, j.attempts AS attempt, j.lease_token`,
        [randomUUID(), options.leaseMs],
      );
      const row = rows[0];
      if (!row) return "none" as const;
      if (row.attempt > options.maxAttempts) {
        await failJobIn(client, row.id, "transcriber_failed", options.events);
        return "exhausted" as const;
      }
      return row;
    });
    if (outcome === "none") return undefined;
    if (outcome === "exhausted") continue;
    return toLeasedJob(outcome);
  }
}

/** Extends a lease while its piece is being transcribed; false when the lease is no longer this worker's. */
export async function renewLease(pool: Pool, job: LeasedJob, leaseMs: number): Promise<boolean> {
  const { rowCount } = await pool.query(
    "UPDATE transcription_jobs SET leased_until = now() + $3::int * interval '1 millisecond' WHERE id = $1 AND lease_token = $2 AND status = 'queued'",
    [job.id, job.leaseToken, leaseMs],
  );
  return rowCount === 1;
}

/** The job's lease is checked and held (row lock) for the rest of the transaction; false when it is no longer this worker's. */
async function holdsLease(client: PoolClient, job: LeasedJob): Promise<boolean> {
  const { rowCount } = await client.query("SELECT 1 FROM transcription_jobs WHERE id = $1 AND lease_token = $2 AND status = 'queued' FOR UPDATE", [
    job.id,
    job.leaseToken,
  ]);
  return rowCount === 1;
}

const ms = (seconds: number) => Math.round(seconds * 1000);

/**
 * Stores a piece's segments and moves the job on, in one transaction, only if the lease is still
 * this worker's (a worker that was too slow and lost it writes nothing: the piece is someone
 * else's now). `nextStart` null: the job's audio is done; the transcript is ready when all its
 * jobs are. Returns what happened to the transcript ('ready' once, when this piece completed it).
 */
export async function completePiece(
  pool: Pool,
  job: LeasedJob,
  piece: { segments: TranscribedSegment[]; nextStart: number | null },
  events: TranscriptEvents,
): Promise<PieceStored> {
  return inTransaction<PieceStored>(pool, async (client) => {
    // The transcript first: jobs finishing at once serialise on it, so exactly one sees the last one done.
    await client.query("SELECT 1 FROM transcripts WHERE id = $1 FOR UPDATE", [job.transcriptId]);
    if (!(await holdsLease(client, job))) return "lease_lost";
    for (const segment of piece.segments)
      await client.query("INSERT INTO transcript_segments (transcript_id, job_id, start_ms, end_ms, text, words) VALUES ($1, $2, $3, $4, $5, $6)", [
        job.transcriptId,
        job.id,
        job.offsetMs + ms(segment.start),
        job.offsetMs + ms(segment.end),
        segment.text,
        JSON.stringify(
          segment.words.map((word) => ({
            start_ms: job.offsetMs + ms(word.start),
            end_ms: job.offsetMs + ms(word.end),
            word: word.word,
            probability: word.probability,
          })),
        ),
      ]);
    if (piece.nextStart !== null) {
      await client.query(
        "UPDATE transcription_jobs SET next_start = $2, attempts = 0, lease_token = NULL, leased_until = NULL, updated_at = now() WHERE id = $1",
        [job.id, piece.nextStart],
      );
      return "continues";
    }
    await client.query("UPDATE transcription_jobs SET status = 'done', lease_token = NULL, leased_until = NULL, updated_at = now() WHERE id = $1", [job.id]);
    const { rows } = await client.query<{ left: string }>("SELECT count(*) AS left FROM transcription_jobs WHERE transcript_id = $1 AND status <> 'done'", [
      job.transcriptId,
    ]);
    if (Number(rows[0]!.left) > 0) return "continues";
    const { rowCount } = await client.query("UPDATE transcripts SET status = 'ready', completed_at = now() WHERE id = $1 AND status = 'processing'", [
      job.transcriptId,
    ]);
    if (rowCount !== 1) return "continues";
    await emitEnd(client, job.transcriptId, events.ready);
    return "ready";
  });
}

/**
 * A piece failed: with attempts left, the lease is given back after `retryAfterMs` (the piece is
 * tried again from the same start); without, the job and its transcript fail with `code`.
 */
export async function failPiece(
  pool: Pool,
  job: LeasedJob,
  failure: { code: TranscriptionFailureCode; final: boolean; retryAfterMs: number },
  events: TranscriptEvents,
): Promise<PieceFailure> {
  return inTransaction<PieceFailure>(pool, async (client) => {
    await client.query("SELECT 1 FROM transcripts WHERE id = $1 FOR UPDATE", [job.transcriptId]);
    if (!(await holdsLease(client, job))) return "lease_lost";
    if (!failure.final) {
      await client.query(
        "UPDATE transcription_jobs SET lease_token = NULL, leased_until = now() + $2::int * interval '1 millisecond', updated_at = now() WHERE id = $1",
        [job.id, failure.retryAfterMs],
      );
      return "retrying";
    }
    await failJobIn(client, job.id, failure.code, events);
    return "failed";
  });
}

/** The job fails, and its transcript with it (its other jobs stop: a transcript missing a speaker is not ready). */
async function failJobIn(client: PoolClient, jobId: string, code: TranscriptionFailureCode, events: TranscriptEvents): Promise<void> {
  const { rows } = await client.query<{ transcript_id: string }>(
    "UPDATE transcription_jobs SET status = 'failed', error_code = $2, lease_token = NULL, leased_until = NULL, updated_at = now() WHERE id = $1 RETURNING transcript_id",
    [jobId, code],
  );
  const transcriptId = rows[0]?.transcript_id;
  if (!transcriptId) return;
  await client.query(
    "UPDATE transcription_jobs SET status = 'failed', error_code = $2, lease_token = NULL, leased_until = NULL, updated_at = now() WHERE transcript_id = $1 AND status = 'queued'",
    [transcriptId, code],
  );
  const { rowCount } = await client.query(
    "UPDATE transcripts SET status = 'failed', error_code = $2, completed_at = now() WHERE id = $1 AND status = 'processing'",
    [transcriptId, code],
  );
  if (rowCount === 1) await emitEnd(client, transcriptId, events.failed);
}
