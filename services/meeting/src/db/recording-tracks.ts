import { fromSnakeCaseRow, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import type { StoredTrack } from "../recording-store.ts";

/** Its row: each field under its snake_case column. */
type TrackRow = SnakeCaseRow<StoredTrack>;

const COLUMNS = "id, recording_id, participant_id, display_name, email, track_sid, egress_id, storage, object_key, status, started_at, ended_at";

const toTrack = (row: TrackRow): StoredTrack => fromSnakeCaseRow<StoredTrack>(row);

type Queryable = Pool | PoolClient;

export type NewTrack = Pick<StoredTrack, "id" | "recordingId" | "participantId" | "displayName" | "email" | "trackSid" | "storage" | "objectKey">;

/** Claims the track for the recording before its egress is asked; undefined when it has one already (a webhook and the start both saw it). */
export async function claimTrack(db: Queryable, track: NewTrack): Promise<StoredTrack | undefined> {
  const { rows } = await db.query<TrackRow>(
    `INSERT INTO recording_tracks (id, recording_id, participant_id, display_name, email, track_sid, storage, object_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (recording_id, track_sid) DO NOTHING
     RETURNING ${COLUMNS}`,
    [track.id, track.recordingId, track.participantId, track.displayName, track.email, track.trackSid, track.storage, track.objectKey],
  );
  return rows[0] ? toTrack(rows[0]) : undefined;
}

export async function setTrackEgress(db: Queryable, id: string, egressId: string): Promise<void> {
  await db.query("UPDATE recording_tracks SET egress_id = $2 WHERE id = $1", [id, egressId]);
}

/** The egress refused: the claim is given back. */
export async function releaseTrack(db: Queryable, id: string): Promise<void> {
  await db.query("DELETE FROM recording_tracks WHERE id = $1 AND egress_id IS NULL", [id]);
}

export const trackByEgress = async (db: Queryable, egressId: string): Promise<StoredTrack | undefined> =>
  (await db.query<TrackRow>(`SELECT ${COLUMNS} FROM recording_tracks WHERE egress_id = $1`, [egressId])).rows.map(toTrack)[0];

/** The recording's tracks, in the order they were claimed (the transcript's speakers' order). */
export const tracksOf = async (db: Queryable, recordingId: string): Promise<StoredTrack[]> =>
  (await db.query<TrackRow>(`SELECT ${COLUMNS} FROM recording_tracks WHERE recording_id = $1 ORDER BY created_at, id`, [recordingId])).rows.map(toTrack);

/** The egress reports the track's capture begun: its time is the track's second 0 (kept from the first report). */
export async function markTrackCapturing(db: Queryable, id: string, startedAt: Date): Promise<void> {
  await db.query("UPDATE recording_tracks SET started_at = $2 WHERE id = $1 AND started_at IS NULL", [id, startedAt]);
}

/** → ready or failed, once (only a track still recording changes); undefined otherwise. */
export async function markTrackEnded(
  db: Queryable,
  id: string,
  end: { status: "ready" | "failed"; startedAt: Date | null; endedAt: Date },
): Promise<StoredTrack | undefined> {
  const { rows } = await db.query<TrackRow>(
    `UPDATE recording_tracks SET status = $2, started_at = COALESCE(started_at, $3), ended_at = $4
      WHERE id = $1 AND status = 'recording' RETURNING ${COLUMNS}`,
    [id, end.status, end.startedAt, end.endedAt],
  );
  return rows[0] ? toTrack(rows[0]) : undefined;
}

/** Tracks still recording whose recording has finished (the watchdog's list: a lost egress_ended must not hold the transcript back). */
export const tracksOutlivingRecordings = async (db: Queryable, limit: number): Promise<StoredTrack[]> =>
  (
    await db.query<TrackRow>(
      `SELECT ${COLUMNS.split(", ")
        .map((column) => `t.${column}`)
        .join(", ")} FROM recording_tracks t JOIN recordings r ON r.id = t.recording_id
        WHERE t.status = 'recording' AND t.egress_id IS NOT NULL AND r.status IN ('processing', 'ready', 'failed') ORDER BY t.created_at LIMIT $1`,
      [limit],
    )
  ).rows.map(toTrack);
