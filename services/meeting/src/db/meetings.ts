import type { Pool, PoolClient } from "@svc/platform";

/** scheduled → live (someone entered the room) → ended. DESIGN.md section 8. */
export type MeetingStatus = "scheduled" | "live" | "ended";

/** Why a meeting ended: through the API, or emptied past its grace period. */
export type MeetingEndCause = "api" | "empty";

export interface StoredMeeting {
  id: string;
  orgId: string;
  title: string;
  start: Date | null;
  status: MeetingStatus;
  attendees: string[];
  createdAt: Date;
  endedAt: Date | null;
  createdByUserId: string;
  createdByClientId: string | null;
}

export interface NewMeeting {
  id: string;
  orgId: string;
  createdByUserId: string;
  createdByClientId: string | null;
  title: string;
  start: Date | null;
  attendees: string[];
}

export interface MeetingPage {
  meetings: StoredMeeting[];
  /** The `seq` to continue after (exclusive), when there are more. */
  nextAfterSeq: string | null;
}

interface MeetingRow {
  id: string;
  seq: string;
  org_id: string;
  title: string;
  start: Date | null;
  status: MeetingStatus;
  attendees: string[];
  created_at: Date;
  ended_at: Date | null;
  created_by_user_id: string;
  created_by_client_id: string | null;
}

const SELECT_MEETING = `
  SELECT m.id, m.seq, m.org_id, m.title, m.start, m.status, m.created_at, m.ended_at, m.created_by_user_id, m.created_by_client_id,
         ARRAY(SELECT p.email FROM participants p WHERE p.meeting_id = m.id ORDER BY p.ordinal) AS attendees
    FROM meetings m`;

const toMeeting = (row: MeetingRow): StoredMeeting => ({
  id: row.id,
  orgId: row.org_id,
  title: row.title,
  start: row.start,
  status: row.status,
  attendees: row.attendees,
  createdAt: row.created_at,
  endedAt: row.ended_at,
  createdByUserId: row.created_by_user_id,
  createdByClientId: row.created_by_client_id,
});

type Queryable = Pool | PoolClient;

async function selectOne(db: Queryable, where: string, values: unknown[], suffix = ""): Promise<StoredMeeting | undefined> {
  const { rows } = await db.query<MeetingRow>(`${SELECT_MEETING} WHERE ${where}${suffix}`, values);
  return rows[0] ? toMeeting(rows[0]) : undefined;
}

// One statement, so one round trip and atomic by itself: the meeting and its attendees
// (data-modifying CTEs; the foreign key is checked at the end of the statement).
export async function insertMeeting(pool: Pool, meeting: NewMeeting): Promise<StoredMeeting> {
  const { rows } = await pool.query<MeetingRow>(
    `WITH meeting AS (
       INSERT INTO meetings (id, org_id, created_by_user_id, created_by_client_id, title, start, status)
       VALUES ($1, $2, $3, $4, $5, $6::timestamptz, 'scheduled')
       RETURNING id, seq, org_id, title, start, status, created_at, ended_at, created_by_user_id, created_by_client_id
     ), attendees AS (
       INSERT INTO participants (meeting_id, ordinal, email)
       SELECT $1, ordinality - 1, email FROM unnest($7::text[]) WITH ORDINALITY AS a(email, ordinality)
     )
     SELECT meeting.*, $7::text[] AS attendees FROM meeting`,
    [meeting.id, meeting.orgId, meeting.createdByUserId, meeting.createdByClientId, meeting.title, meeting.start, meeting.attendees],
  );
  return toMeeting(rows[0]!);
}

/** Only within `orgId`: another organization's meeting does not exist for this caller. */
export const getMeetingOfOrg = (db: Queryable, orgId: string, id: string) => selectOne(db, "m.id = $1 AND m.org_id = $2", [id, orgId]);

/** By id alone, for the public join page and join grants (the id is the capability). */
export const getMeeting = (db: Queryable, id: string) => selectOne(db, "m.id = $1", [id]);

/**
 * Locks the meeting's row for the rest of the transaction: every change of a meeting's state
 * (joins, leaves, ends) takes this lock first, so they apply one after the other.
 */
export const lockMeeting = (client: PoolClient, id: string) => selectOne(client, "m.id = $1", [id], " FOR UPDATE OF m");

/** Newest first. */
export async function listMeetings(pool: Pool, orgId: string, { limit, afterSeq }: { limit: number; afterSeq: string | null }): Promise<MeetingPage> {
  const { rows } = await pool.query<MeetingRow>(
    `${SELECT_MEETING} WHERE m.org_id = $1 AND ($2::bigint IS NULL OR m.seq < $2::bigint) ORDER BY m.seq DESC LIMIT $3`,
    [orgId, afterSeq, limit + 1],
  );
  const page = rows.slice(0, limit);
  return { meetings: page.map(toMeeting), nextAfterSeq: rows.length > limit ? page.at(-1)!.seq : null };
}

/** The meeting is live and nobody is waiting for it to empty (someone is in the room). */
export async function markLive(client: PoolClient, id: string): Promise<void> {
  await client.query("UPDATE meetings SET status = 'live', empty_since = NULL WHERE id = $1 AND status <> 'ended'", [id]);
}

/** Starts the grace period of a live meeting whose room just emptied (kept if already running). */
export async function markEmpty(client: PoolClient, id: string, since: Date): Promise<void> {
  await client.query("UPDATE meetings SET empty_since = COALESCE(empty_since, $2) WHERE id = $1 AND status = 'live'", [id, since]);
}

/** → ended; false when it had already ended. */
export async function markEnded(client: PoolClient, id: string): Promise<boolean> {
  const result = await client.query("UPDATE meetings SET status = 'ended', ended_at = now(), empty_since = NULL WHERE id = $1 AND status <> 'ended'", [id]);
  return result.rowCount === 1;
}

/** Live meetings empty for at least `graceSeconds`, locked; rows another replica holds are skipped. */
export async function claimMeetingsEmptyFor(client: PoolClient, graceSeconds: number, limit: number): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    `SELECT id FROM meetings
      WHERE empty_since IS NOT NULL AND empty_since <= now() - make_interval(secs => $1) AND status = 'live'
      ORDER BY empty_since LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [graceSeconds, limit],
  );
  return rows.map((row) => row.id);
}

/** Live meetings, and any meeting with someone recorded as present: what reconciliation checks. */
export async function meetingsWithPresence(pool: Pool, limit: number): Promise<{ id: string; status: MeetingStatus }[]> {
  const { rows } = await pool.query<{ id: string; status: MeetingStatus }>(
    `SELECT id, status FROM meetings WHERE status = 'live'
     UNION
     SELECT m.id, m.status FROM meetings m WHERE EXISTS (SELECT 1 FROM room_participants r WHERE r.meeting_id = m.id AND r.left_at IS NULL)
     LIMIT $1`,
    [limit],
  );
  return rows;
}
