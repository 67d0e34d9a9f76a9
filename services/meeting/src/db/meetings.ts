import type { Pool, PoolClient } from "@svc/platform";

/** scheduled → live (someone entered the room) → ended, or cancelled before it ended. docs/decisions/0007-meeting-status-follows-the-room.md. */
export type MeetingStatus = "scheduled" | "live" | "ended" | "cancelled";

/** Nobody may enter, and nothing about it changes any more. */
export const isClosed = (status: MeetingStatus) => status === "ended" || status === "cancelled";

/** Why a meeting ended: through the API, emptied past its grace period, or its planned end passed with nobody in it. */
export type MeetingEndCause = "api" | "empty" | "end_passed";

export interface StoredMeeting {
  id: string;
  orgId: string;
  title: string;
  start: Date | null;
  /** The planned end, when one was given. */
  end: Date | null;
  status: MeetingStatus;
  attendees: string[];
  createdAt: Date;
  endedAt: Date | null;
  cancelledAt: Date | null;
  createdByUserId: string;
  createdByClientId: string | null;
  /** When its media room was first opened (a join grant, or someone entering); null: it never had one. */
  roomOpenedAt: Date | null;
}

/** The fields a scheduling tool may change. */
export interface MeetingDetails {
  title: string;
  start: Date | null;
  end: Date | null;
  attendees: string[];
}

export interface NewMeeting {
  id: string;
  orgId: string;
  createdByUserId: string;
  createdByClientId: string | null;
  title: string;
  start: Date | null;
  end: Date | null;
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
  planned_end: Date | null;
  status: MeetingStatus;
  attendees: string[];
  created_at: Date;
  ended_at: Date | null;
  cancelled_at: Date | null;
  created_by_user_id: string;
  created_by_client_id: string | null;
  room_opened_at: Date | null;
}

/** A meeting row with its attendees (`m` is the meetings table), as toMeeting reads it. */
const MEETING_COLUMNS = `m.id, m.seq, m.org_id, m.title, m.start, m.planned_end, m.status, m.created_at, m.ended_at, m.cancelled_at, m.created_by_user_id, m.created_by_client_id, m.room_opened_at,
         ARRAY(SELECT p.email FROM participants p WHERE p.meeting_id = m.id ORDER BY p.ordinal) AS attendees`;

const SELECT_MEETING = `
  SELECT ${MEETING_COLUMNS}
    FROM meetings m`;

const toMeeting = (row: MeetingRow): StoredMeeting => ({
  id: row.id,
  orgId: row.org_id,
  title: row.title,
  start: row.start,
  end: row.planned_end,
  status: row.status,
  attendees: row.attendees,
  createdAt: row.created_at,
  endedAt: row.ended_at,
  cancelledAt: row.cancelled_at,
  createdByUserId: row.created_by_user_id,
  createdByClientId: row.created_by_client_id,
  roomOpenedAt: row.room_opened_at,
});

type Queryable = Pool | PoolClient;

async function selectOne(db: Queryable, where: string, values: unknown[], suffix = ""): Promise<StoredMeeting | undefined> {
  const { rows } = await db.query<MeetingRow>(`${SELECT_MEETING} WHERE ${where}${suffix}`, values);
  return rows[0] ? toMeeting(rows[0]) : undefined;
}

// One statement, so one round trip and atomic by itself: the meeting and its attendees
// (data-modifying CTEs; the foreign key is checked at the end of the statement).
export async function insertMeeting(db: Queryable, meeting: NewMeeting): Promise<StoredMeeting> {
  const { rows } = await db.query<MeetingRow>(
    `WITH meeting AS (
       INSERT INTO meetings (id, org_id, created_by_user_id, created_by_client_id, title, start, planned_end, status)
       VALUES ($1, $2, $3, $4, $5, $6::timestamptz, $8::timestamptz, 'scheduled')
       RETURNING id, seq, org_id, title, start, planned_end, status, created_at, ended_at, cancelled_at, created_by_user_id, created_by_client_id
     ), attendees AS (
       INSERT INTO participants (meeting_id, ordinal, email)
       SELECT $1, ordinality - 1, email FROM unnest($7::text[]) WITH ORDINALITY AS a(email, ordinality)
     )
     SELECT meeting.*, $7::text[] AS attendees FROM meeting`,
    [meeting.id, meeting.orgId, meeting.createdByUserId, meeting.createdByClientId, meeting.title, meeting.start, meeting.attendees, meeting.end],
  );
  return toMeeting(rows[0]!);
}

/** Replaces the details of a locked meeting (attendees in the order given). */
export async function updateMeetingDetails(client: PoolClient, id: string, details: MeetingDetails): Promise<void> {
  await client.query("UPDATE meetings SET title = $2, start = $3, planned_end = $4 WHERE id = $1", [id, details.title, details.start, details.end]);
  await client.query("DELETE FROM participants WHERE meeting_id = $1", [id]);
  await client.query(
    "INSERT INTO participants (meeting_id, ordinal, email) SELECT $1, ordinality - 1, email FROM unnest($2::text[]) WITH ORDINALITY AS a(email, ordinality)",
    [id, details.attendees],
  );
}

/** Only within `orgId`: another organization's meeting does not exist for this caller. */
export const getMeetingOfOrg = (db: Queryable, orgId: string, id: string) => selectOne(db, "m.id = $1 AND m.org_id = $2", [id, orgId]);

/** By id alone, for the public join page and join grants (the id is the capability). */
export const getMeeting = (db: Queryable, id: string) => selectOne(db, "m.id = $1", [id]);

/**
 * Locks the meeting's row for the rest of the transaction: every change of a meeting's state
 * (joins, leaves, ends) takes this lock first, so they apply one after the other. With `orgId`,
 * another organization's meeting is not found (and not locked).
 */
export const lockMeeting = (client: PoolClient, id: string, orgId?: string) =>
  orgId === undefined
    ? selectOne(client, "m.id = $1", [id], " FOR UPDATE OF m")
    : selectOne(client, "m.id = $1 AND m.org_id = $2", [id, orgId], " FOR UPDATE OF m");

export interface MeetingFilter {
  status: MeetingStatus | null;
  /** Start at or after. */
  startFrom: Date | null;
  /** Start before. */
  startBefore: Date | null;
}

/** Newest first. */
export async function listMeetings(
  pool: Pool,
  orgId: string,
  { limit, afterSeq, filter }: { limit: number; afterSeq: string | null; filter: MeetingFilter },
): Promise<MeetingPage> {
  const { rows } = await pool.query<MeetingRow>(
    `${SELECT_MEETING}
      WHERE m.org_id = $1 AND ($2::bigint IS NULL OR m.seq < $2::bigint)
        AND ($4::text IS NULL OR m.status = $4) AND ($5::timestamptz IS NULL OR m.start >= $5) AND ($6::timestamptz IS NULL OR m.start < $6)
      ORDER BY m.seq DESC LIMIT $3`,
    [orgId, afterSeq, limit + 1, filter.status, filter.startFrom, filter.startBefore],
  );
  const page = rows.slice(0, limit);
  return { meetings: page.map(toMeeting), nextAfterSeq: rows.length > limit ? page.at(-1)!.seq : null };
}

/** The meeting is live and nobody is waiting for it to empty (someone is in the room). */
export async function markLive(client: PoolClient, id: string): Promise<void> {
  await client.query(
    "UPDATE meetings SET status = 'live', empty_since = NULL, room_opened_at = COALESCE(room_opened_at, now()) WHERE id = $1 AND status IN ('scheduled', 'live')",
    [id],
  );
}

/**
 * Records that a join grant opens the meeting's media room, unless the meeting has closed
 * meanwhile (false). Taking the row's lock, it orders itself with an end or a cancellation: one
 * that comes after sees the room and closes it.
 */
export async function markRoomOpened(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    "UPDATE meetings SET room_opened_at = COALESCE(room_opened_at, now()) WHERE id = $1 AND status IN ('scheduled', 'live')",
    [id],
  );
  return rowCount === 1;
}

/** Starts the grace period of a live meeting whose room just emptied (kept if already running). */
export async function markEmpty(client: PoolClient, id: string, since: Date): Promise<void> {
  await client.query("UPDATE meetings SET empty_since = COALESCE(empty_since, $2) WHERE id = $1 AND status = 'live'", [id, since]);
}

/**
 * → ended, answering the ended meeting; undefined when it was not scheduled or live (or, with
 * `orgId`, is another organization's). Takes the row's lock, as lockMeeting does.
 */
export async function markEnded(client: PoolClient, id: string, orgId?: string): Promise<StoredMeeting | undefined> {
  const { rows } = await client.query<MeetingRow>(
    `UPDATE meetings m SET status = 'ended', ended_at = now(), empty_since = NULL
      WHERE m.id = $1 AND ($2::text IS NULL OR m.org_id = $2) AND m.status IN ('scheduled', 'live')
     RETURNING ${MEETING_COLUMNS}`,
    [id, orgId ?? null],
  );
  return rows[0] ? toMeeting(rows[0]) : undefined;
}

/**
 * → cancelled, answering the cancelled meeting; undefined when it was not scheduled or live (or,
 * with `orgId`, is another organization's). Takes the row's lock, as lockMeeting does.
 */
export async function markCancelled(client: PoolClient, id: string, orgId?: string): Promise<StoredMeeting | undefined> {
  const { rows } = await client.query<MeetingRow>(
    `UPDATE meetings m SET status = 'cancelled', cancelled_at = now(), empty_since = NULL
      WHERE m.id = $1 AND ($2::text IS NULL OR m.org_id = $2) AND m.status IN ('scheduled', 'live')
     RETURNING ${MEETING_COLUMNS}`,
    [id, orgId ?? null],
  );
  return rows[0] ? toMeeting(rows[0]) : undefined;
}

/**
 * Meetings that are over, locked (rows another replica holds are skipped): live ones empty for
 * `graceSeconds`, live ones empty past their planned end, and scheduled ones past their planned
 * end (nobody came). Someone in the room keeps a meeting going past its planned end.
 */
export async function claimMeetingsDueToEnd(client: PoolClient, graceSeconds: number, limit: number): Promise<{ id: string; status: MeetingStatus }[]> {
  const { rows } = await client.query<{ id: string; status: MeetingStatus }>(
    `SELECT id, status FROM meetings
      WHERE (status = 'live' AND empty_since IS NOT NULL AND (empty_since <= now() - make_interval(secs => $1) OR planned_end <= now()))
         OR (status = 'scheduled' AND planned_end IS NOT NULL AND planned_end <= now())
      LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [graceSeconds, limit],
  );
  return rows;
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
