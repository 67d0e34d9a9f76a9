import type { Pool, PoolClient } from "@svc/platform/db";
import type { TranscriptionFailureCode, TranscriptStatus } from "./transcription-jobs.ts";

/** Someone whose own audio a transcript is made from (one transcription job each). */
export interface TranscriptSpeaker {
  displayName: string;
  /** For an invited host or attendee who entered with their personal link. */
  email: string | null;
}

export interface StoredTranscript {
  id: string;
  meetingId: string;
  orgId: string;
  status: TranscriptStatus;
  language: string;
  errorCode: TranscriptionFailureCode | null;
  createdAt: Date;
  completedAt: Date | null;
  /** Where the last speech ends on the transcript's time line; null until ready or when nothing was said. */
  durationMs: number | null;
  /** The recording whose run the speakers' audio was taken beside, if any. */
  recordingId: string | null;
  /** In the order of their jobs (a segment's `speakerIndex` points here). */
  speakers: TranscriptSpeaker[];
}

export interface StoredSegment {
  speakerIndex: number;
  startMs: number;
  endMs: number;
  text: string;
}

interface TranscriptRow {
  id: string;
  meeting_id: string;
  org_id: string;
  status: TranscriptStatus;
  language: string;
  error_code: TranscriptionFailureCode | null;
  created_at: Date;
  completed_at: Date | null;
  duration_ms: string | null;
  recording_id: string | null;
  speakers: { display_name: string; email: string | null }[];
}

// The speakers come from the jobs, in their order; the duration is the last segment's end, once ready.
const SELECT_TRANSCRIPT = `
  SELECT t.id, t.meeting_id, t.org_id, t.status, t.language, t.error_code, t.created_at, t.completed_at, t.recording_id,
         CASE WHEN t.status = 'ready' THEN (SELECT max(s.end_ms) FROM transcript_segments s WHERE s.transcript_id = t.id) END AS duration_ms,
         COALESCE((SELECT json_agg(json_build_object('display_name', j.speaker_name, 'email', j.speaker_email) ORDER BY j.ordinal, j.id)
                     FROM transcription_jobs j WHERE j.transcript_id = t.id), '[]') AS speakers
    FROM transcripts t`;

const toTranscript = (row: TranscriptRow): StoredTranscript => ({
  id: row.id,
  meetingId: row.meeting_id,
  orgId: row.org_id,
  status: row.status,
  language: row.language,
  errorCode: row.error_code,
  createdAt: row.created_at,
  completedAt: row.completed_at,
  durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  recordingId: row.recording_id,
  speakers: row.speakers.map((speaker) => ({ displayName: speaker.display_name, email: speaker.email })),
});

type Queryable = Pool | PoolClient;

/** Only within `orgId`: another organization's transcript does not exist for this caller. */
export const transcriptOfOrg = async (db: Queryable, orgId: string, id: string): Promise<StoredTranscript | undefined> =>
  (await db.query<TranscriptRow>(`${SELECT_TRANSCRIPT} WHERE t.id = $1 AND t.org_id = $2`, [id, orgId])).rows.map(toTranscript)[0];

/** By id alone: for a verified access link (the link names it) and for the events of the worker. */
export const transcriptById = async (db: Queryable, id: string): Promise<StoredTranscript | undefined> =>
  (await db.query<TranscriptRow>(`${SELECT_TRANSCRIPT} WHERE t.id = $1`, [id])).rows.map(toTranscript)[0];

/** Newest first. */
export const transcriptsOfMeeting = async (db: Queryable, meetingId: string): Promise<StoredTranscript[]> =>
  (await db.query<TranscriptRow>(`${SELECT_TRANSCRIPT} WHERE t.meeting_id = $1 ORDER BY t.created_at DESC, t.id`, [meetingId])).rows.map(toTranscript);

/**
 * The transcript's segments in time order (ties: the speaker's order), each naming its speaker by
 * its place in the transcript's speakers.
 */
export async function segmentsOf(db: Queryable, transcriptId: string): Promise<StoredSegment[]> {
  const { rows } = await db.query<{ speaker_index: number; start_ms: string; end_ms: string; text: string }>(
    `SELECT speakers.speaker_index, s.start_ms, s.end_ms, s.text
       FROM transcript_segments s
       JOIN (SELECT id, (row_number() OVER (ORDER BY ordinal, id) - 1)::int AS speaker_index FROM transcription_jobs WHERE transcript_id = $1) speakers
         ON speakers.id = s.job_id
      WHERE s.transcript_id = $1
      ORDER BY s.start_ms, speakers.speaker_index, s.id`,
    [transcriptId],
  );
  return rows.map((row) => ({ speakerIndex: row.speaker_index, startMs: Number(row.start_ms), endMs: Number(row.end_ms), text: row.text }));
}

/** Deletes the transcript with its jobs and segments (a worker holding one of its jobs then stores nothing: its lease is gone). */
export async function deleteTranscriptRow(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query("DELETE FROM transcripts WHERE id = $1", [id]);
  return rowCount === 1;
}

/** Finished transcripts that completed more than `days` ago (retention, as recordings), oldest first; deleted in one statement. */
export async function deleteTranscriptsPastRetention(db: Queryable, days: number, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM transcripts WHERE id IN (
       SELECT id FROM transcripts WHERE status IN ('ready', 'failed') AND completed_at < now() - make_interval(secs => $1) ORDER BY completed_at LIMIT $2)`,
    [days * 86_400, limit],
  );
  return rowCount ?? 0;
}
