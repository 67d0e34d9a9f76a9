import { fromSnakeCaseRow, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import { recordingFailureMessages, type RecordingFailureCode } from "@svc/platform/contract";
import type { RecordingLayout, RecordingStarter, RecordingStorageKind, StoredRecording } from "../recording-store.ts";

/** The fields of a recording the table holds as they are. */
type RecordingColumns = Omit<StoredRecording, "durationMs" | "sizeBytes" | "error">;

/** Its row: the lengths are bigint columns, which pg answers as strings. */
type RecordingRow = SnakeCaseRow<RecordingColumns> & { duration_ms: string | null; size_bytes: string | null };

const COLUMNS =
  "id, meeting_id, org_id, egress_id, layout, status, started_by, storage, object_key, started_at, capturing, ended_at, duration_ms, size_bytes, error_code, missing_since";

/** The lengths become numbers (a recording's bytes stay far below 2^53), and the error message is derived from its code. */
const toRecording = ({ duration_ms, size_bytes, ...columns }: RecordingRow): StoredRecording => {
  const recording = fromSnakeCaseRow<RecordingColumns>(columns);
  return {
    ...recording,
    durationMs: duration_ms === null ? null : Number(duration_ms),
    sizeBytes: size_bytes === null ? null : Number(size_bytes),
    error: recording.errorCode ? recordingFailureMessages[recording.errorCode] : null,
  };
};

type Queryable = Pool | PoolClient;

export interface NewRecording {
  id: string;
  meetingId: string;
  orgId: string;
  layout: RecordingLayout;
  startedBy: RecordingStarter;
  storage: RecordingStorageKind;
  objectKey: string;
}

/**
 * Claims the meeting for a new recording: the row exists (status `recording`, no recorder yet)
 * before the recorder is asked, so a second start at the same moment meets the unique index of
 * recordings in progress instead of starting a second recorder. Undefined when one is in progress.
 */
export async function claimRecording(db: Queryable, recording: NewRecording): Promise<StoredRecording | undefined> {
  const { rows } = await db.query<RecordingRow>(
    `INSERT INTO recordings (id, meeting_id, org_id, layout, status, started_by, storage, object_key)
     VALUES ($1, $2, $3, $4, 'recording', $5, $6, $7)
     ON CONFLICT (meeting_id) WHERE status = 'recording' DO NOTHING
     RETURNING ${COLUMNS}`,
    [recording.id, recording.meetingId, recording.orgId, recording.layout, recording.startedBy, recording.storage, recording.objectKey],
  );
  return rows[0] ? toRecording(rows[0]) : undefined;
}

/** The recorder accepted: its id, and when it started. */
export async function markRecorderStarted(client: PoolClient, id: string, egressId: string): Promise<StoredRecording | undefined> {
  const { rows } = await client.query<RecordingRow>(
    `UPDATE recordings SET egress_id = $2, started_at = now() WHERE id = $1 AND egress_id IS NULL AND status = 'recording' RETURNING ${COLUMNS}`,
    [id, egressId],
  );
  return rows[0] ? toRecording(rows[0]) : undefined;
}

/**
 * The recorder reports the run active: capture began at `startedAt` (its own time). Undefined
 * when the recording was already capturing or has stopped (an update seen twice, or late).
 */
export async function markCapturing(db: Queryable, id: string, startedAt: Date): Promise<StoredRecording | undefined> {
  const { rows } = await db.query<RecordingRow>(
    `UPDATE recordings SET capturing = true, started_at = $2 WHERE id = $1 AND status = 'recording' AND NOT capturing RETURNING ${COLUMNS}`,
    [id, startedAt],
  );
  return rows[0] ? toRecording(rows[0]) : undefined;
}

/** The recorder refused or did not answer: the claim is given back (nothing was recorded, nothing emitted). */
export async function releaseClaim(db: Queryable, id: string): Promise<void> {
  await db.query("DELETE FROM recordings WHERE id = $1 AND egress_id IS NULL", [id]);
}

export const recordingOfOrg = async (db: Queryable, orgId: string, id: string): Promise<StoredRecording | undefined> =>
  (await db.query<RecordingRow>(`SELECT ${COLUMNS} FROM recordings WHERE id = $1 AND org_id = $2`, [id, orgId])).rows.map(toRecording)[0];

export const recordingById = async (db: Queryable, id: string): Promise<StoredRecording | undefined> =>
  (await db.query<RecordingRow>(`SELECT ${COLUMNS} FROM recordings WHERE id = $1`, [id])).rows.map(toRecording)[0];

export const recordingByEgress = async (db: Queryable, egressId: string, lock = false): Promise<StoredRecording | undefined> =>
  (await db.query<RecordingRow>(`SELECT ${COLUMNS} FROM recordings WHERE egress_id = $1${lock ? " FOR UPDATE" : ""}`, [egressId])).rows.map(toRecording)[0];

/** Newest first. */
export const recordingsOfMeeting = async (db: Queryable, meetingId: string): Promise<StoredRecording[]> =>
  (await db.query<RecordingRow>(`SELECT ${COLUMNS} FROM recordings WHERE meeting_id = $1 ORDER BY created_at DESC, id`, [meetingId])).rows.map(toRecording);

/** The meeting's recording in progress, if any. */
export const activeRecordingOf = async (db: Queryable, meetingId: string): Promise<StoredRecording | undefined> =>
  (await db.query<RecordingRow>(`SELECT ${COLUMNS} FROM recordings WHERE meeting_id = $1 AND status = 'recording'`, [meetingId])).rows.map(toRecording)[0];

/** Recordings whose recorder has not finished (the watchdog's list). */
export const unfinishedRecordings = async (db: Queryable, limit: number): Promise<StoredRecording[]> =>
  (
    await db.query<RecordingRow>(
      `SELECT ${COLUMNS} FROM recordings WHERE status IN ('recording', 'processing') AND egress_id IS NOT NULL ORDER BY started_at LIMIT $1`,
      [limit],
    )
  ).rows.map(toRecording);

/** recording → processing (a stop was asked); undefined when it was not recording. */
export async function markProcessing(db: Queryable, id: string): Promise<StoredRecording | undefined> {
  const { rows } = await db.query<RecordingRow>(
    `UPDATE recordings SET status = 'processing', ended_at = COALESCE(ended_at, now()) WHERE id = $1 AND status = 'recording' RETURNING ${COLUMNS}`,
    [id],
  );
  return rows[0] ? toRecording(rows[0]) : undefined;
}

export interface FinishedFile {
  startedAt: Date | null;
  endedAt: Date;
  durationMs: number;
  sizeBytes: number;
}

/**
 * → ready, once: only a recording still in progress changes (the answer is undefined otherwise),
 * which is what makes recording.ready exactly once however many notifications report the end.
 */
export async function markReady(client: PoolClient, id: string, file: FinishedFile): Promise<StoredRecording | undefined> {
  const { rows } = await client.query<RecordingRow>(
    `UPDATE recordings SET status = 'ready', started_at = COALESCE($2, started_at), ended_at = $3, duration_ms = $4, size_bytes = $5, missing_since = NULL
      WHERE id = $1 AND status IN ('recording', 'processing') RETURNING ${COLUMNS}`,
    [id, file.startedAt, file.endedAt, Math.round(file.durationMs), file.sizeBytes],
  );
  return rows[0] ? toRecording(rows[0]) : undefined;
}

/** → failed, once (as markReady). */
export async function markFailed(client: PoolClient, id: string, code: RecordingFailureCode): Promise<StoredRecording | undefined> {
  const { rows } = await client.query<RecordingRow>(
    `UPDATE recordings SET status = 'failed', error_code = $2, ended_at = COALESCE(ended_at, now()), missing_since = NULL
      WHERE id = $1 AND status IN ('recording', 'processing') RETURNING ${COLUMNS}`,
    [id, code],
  );
  return rows[0] ? toRecording(rows[0]) : undefined;
}

/** The watchdog saw the recorder (null) or did not (kept from the first time it did not). */
export async function noteRecorderSeen(db: Queryable, id: string, seen: boolean): Promise<Date | null> {
  const { rows } = await db.query<{ missing_since: Date | null }>(
    `UPDATE recordings SET missing_since = CASE WHEN $2 THEN NULL ELSE COALESCE(missing_since, now()) END WHERE id = $1 RETURNING missing_since`,
    [id, seen],
  );
  return rows[0]?.missing_since ?? null;
}

export async function deleteRecordingRow(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query("DELETE FROM recordings WHERE id = $1", [id]);
  return rowCount === 1;
}

/** Finished recordings that ended more than `days` ago (retention), oldest first. */
export const recordingsPastRetention = async (db: Queryable, days: number, limit: number): Promise<StoredRecording[]> =>
  (
    await db.query<RecordingRow>(
      `SELECT ${COLUMNS} FROM recordings WHERE status IN ('ready', 'failed') AND ended_at < now() - make_interval(secs => $1) ORDER BY ended_at LIMIT $2`,
      [days * 86_400, limit],
    )
  ).rows.map(toRecording);

/** Live meetings set to record by themselves that have never had an automatic recording (the auto-start sweep). */
export async function meetingsAwaitingAutoRecording(db: Queryable, limit: number): Promise<{ id: string; orgId: string }[]> {
  const { rows } = await db.query<SnakeCaseRow<{ id: string; orgId: string }>>(
    `SELECT m.id, m.org_id FROM meetings m
      WHERE m.status = 'live' AND m.recording = 'auto'
        AND NOT EXISTS (SELECT 1 FROM recordings r WHERE r.meeting_id = m.id AND r.started_by = 'auto')
      LIMIT $1`,
    [limit],
  );
  return rows.map(fromSnakeCaseRow<{ id: string; orgId: string }>);
}

/** How many recordings of each meeting did not fail (in progress, being finished or ready). */
export async function recordingCountsOf(db: Queryable, meetingIds: string[]): Promise<Map<string, number>> {
  if (meetingIds.length === 0) return new Map();
  const { rows } = await db.query<{ meeting_id: string; count: number }>(
    "SELECT meeting_id, count(*)::int AS count FROM recordings WHERE meeting_id = ANY($1::text[]) AND status <> 'failed' GROUP BY meeting_id",
    [meetingIds],
  );
  return new Map(rows.map((row) => [row.meeting_id, row.count]));
}
