import { fromSnakeCaseRow, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import type { StoredSegment, StoredTranscript, TranscriptSpeaker } from "../transcript-store.ts";

/** The fields of a transcript the query answers as they are (snake_case). */
type TranscriptColumns = Omit<StoredTranscript, "durationMs" | "speakers">;

/** Its row: the duration is a bigint (pg answers a string), the speakers a JSON array built from the jobs. */
type TranscriptRow = SnakeCaseRow<TranscriptColumns> & {
  duration_ms: string | null;
  speakers: { display_name: string; email: string | null }[];
};

// The speakers come from the jobs, in their order; the duration is the last segment's end, once ready.
const SELECT_TRANSCRIPT = `
  SELECT t.id, t.meeting_id, t.org_id, t.status, t.language, t.error_code, t.created_at, t.completed_at, t.recording_id,
         CASE WHEN t.status = 'ready' THEN (SELECT max(s.end_ms) FROM transcript_segments s WHERE s.transcript_id = t.id) END AS duration_ms,
         COALESCE((SELECT json_agg(json_build_object('display_name', j.speaker_name, 'email', j.speaker_email) ORDER BY j.ordinal, j.id)
                     FROM transcription_jobs j WHERE j.transcript_id = t.id), '[]') AS speakers
    FROM transcripts t`;

const toTranscript = ({ duration_ms, speakers, ...columns }: TranscriptRow): StoredTranscript => ({
  ...fromSnakeCaseRow<TranscriptColumns>(columns),
  durationMs: duration_ms === null ? null : Number(duration_ms),
  speakers: speakers.map((speaker) => fromSnakeCaseRow<TranscriptSpeaker>(speaker)),
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
  // The bigint times as float8, which pg answers as a number (exact: milliseconds of a meeting are far below 2^53).
  const { rows } = await db.query<SnakeCaseRow<StoredSegment>>(
    `SELECT speakers.speaker_index, s.start_ms::float8 AS start_ms, s.end_ms::float8 AS end_ms, s.text
       FROM transcript_segments s
       JOIN (SELECT id, (row_number() OVER (ORDER BY ordinal, id) - 1)::int AS speaker_index FROM transcription_jobs WHERE transcript_id = $1) speakers
         ON speakers.id = s.job_id
      WHERE s.transcript_id = $1
      ORDER BY s.start_ms, speakers.speaker_index, s.id`,
    [transcriptId],
  );
  return rows.map((row) => fromSnakeCaseRow<StoredSegment>(row));
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
