import { fromSnakeCaseRow, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import type { MeetingStatus, MeetingSettings, MeetingDetails, NewMeeting, StoredMeeting, MeetingPage, MeetingFilter } from "../meeting-store.ts";

/** Nobody may enter, and nothing about it changes any more. */
export const isClosed = (status: MeetingStatus) => status === "ended" || status === "cancelled";

/** The fields of a meeting the table holds under their own names (snake_case). */
type MeetingColumns = Omit<StoredMeeting, "end" | "settings">;

/**
 * A meeting's row: its columns, plus its settings flat (one column each), its planned end (`end`
 * is a reserved word in SQL) and its list position `seq` (a bigint, which pg answers as a string).
 */
export type MeetingRow = SnakeCaseRow<MeetingColumns & MeetingSettings> & { planned_end: Date | null; seq: string };

/** A meeting row with its attendees (`m` is the meetings table), as toMeeting reads it. */
export const MEETING_COLUMNS = `m.id, m.seq, m.org_id, m.title, m.start, m.planned_end, m.status, m.created_at, m.ended_at, m.cancelled_at, m.created_by_user_id, m.created_by_client_id, m.room_opened_at,
         m.lobby, m.screen_share, m.no_show_after_minutes, m.recording, m.transcription, m.room_locked,
         ARRAY(SELECT p.email FROM participants p WHERE p.meeting_id = m.id AND p.role = 'attendee' ORDER BY p.ordinal) AS attendees,
         ARRAY(SELECT p.email FROM participants p WHERE p.meeting_id = m.id AND p.role = 'host' ORDER BY p.ordinal) AS hosts`;

const SELECT_MEETING = `
  SELECT ${MEETING_COLUMNS}
    FROM meetings m`;

/** The settings and the planned end are mapped by hand: the record nests what the row holds flat, under other names. */
export const toMeeting = ({
  seq: _listPosition,
  planned_end,
  lobby,
  screen_share,
  no_show_after_minutes,
  recording,
  transcription,
  ...columns
}: MeetingRow): StoredMeeting => ({
  ...fromSnakeCaseRow<MeetingColumns>(columns),
  end: planned_end,
  settings: { lobby, screenShare: screen_share, noShowAfterMinutes: no_show_after_minutes, recording, transcription },
});

type Queryable = Pool | PoolClient;

async function selectOne(db: Queryable, where: string, values: unknown[], suffix = ""): Promise<StoredMeeting | undefined> {
  const { rows } = await db.query<MeetingRow>(`${SELECT_MEETING} WHERE ${where}${suffix}`, values);
  return rows[0] ? toMeeting(rows[0]) : undefined;
}

/** The invited, hosts first: one row each (roles and addresses in the order given). */
const INSERT_INVITED = `INSERT INTO participants (meeting_id, ordinal, email, role)
       SELECT $1, ordinality - 1, email, CASE WHEN ordinality <= cardinality($2::text[]) THEN 'host' ELSE 'attendee' END
         FROM unnest($2::text[] || $3::text[]) WITH ORDINALITY AS a(email, ordinality)`;

// One statement, so one round trip and atomic by itself: the meeting and its invited people
// (data-modifying CTEs; the foreign key is checked at the end of the statement).
export async function insertMeeting(db: Queryable, meeting: NewMeeting): Promise<StoredMeeting> {
  const { rows } = await db.query<MeetingRow>(
    `WITH meeting AS (
       INSERT INTO meetings (id, org_id, created_by_user_id, created_by_client_id, title, start, planned_end, status, lobby, screen_share, no_show_after_minutes, recording, transcription)
       VALUES ($1, $4, $5, $6, $7, $8::timestamptz, $9::timestamptz, 'scheduled', $10, $11, $12, $13, $14)
       RETURNING id, seq, org_id, title, start, planned_end, status, created_at, ended_at, cancelled_at, created_by_user_id, created_by_client_id, room_opened_at,
                 lobby, screen_share, no_show_after_minutes, recording, transcription, room_locked
     ), invited AS (${INSERT_INVITED})
     SELECT meeting.*, $3::text[] AS attendees, $2::text[] AS hosts FROM meeting`,
    [
      meeting.id,
      meeting.hosts,
      meeting.attendees,
      meeting.orgId,
      meeting.createdByUserId,
      meeting.createdByClientId,
      meeting.title,
      meeting.start,
      meeting.end,
      meeting.settings.lobby,
      meeting.settings.screenShare,
      meeting.settings.noShowAfterMinutes,
      meeting.settings.recording,
      meeting.settings.transcription,
    ],
  );
  return toMeeting(rows[0]!);
}

/**
 * Replaces the details of a locked meeting (invited people in the order given). A start moved
 * into the future makes its no-shows reportable again (a rescheduled meeting is a new occasion).
 */
export async function updateMeetingDetails(client: PoolClient, id: string, details: MeetingDetails): Promise<void> {
  await client.query(
    `UPDATE meetings SET title = $2, start = $3, planned_end = $4, lobby = $5, screen_share = $6, no_show_after_minutes = $7, recording = $8, transcription = $9,
            no_show_reported_at = CASE WHEN $3::timestamptz IS DISTINCT FROM start AND $3::timestamptz > now() THEN NULL ELSE no_show_reported_at END
      WHERE id = $1`,
    [
      id,
      details.title,
      details.start,
      details.end,
      details.settings.lobby,
      details.settings.screenShare,
      details.settings.noShowAfterMinutes,
      details.settings.recording,
      details.settings.transcription,
    ],
  );
  await client.query("DELETE FROM participants WHERE meeting_id = $1", [id]);
  await client.query(INSERT_INVITED, [id, details.hosts, details.attendees]);
}

/** Locks or unlocks the room of a scheduled or live meeting; false when it is neither. */
export async function setRoomLocked(db: Queryable, id: string, locked: boolean): Promise<boolean> {
  const { rowCount } = await db.query("UPDATE meetings SET room_locked = $2 WHERE id = $1 AND status IN ('scheduled', 'live')", [id, locked]);
  return rowCount === 1;
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

/** `text` as a LIKE pattern matching it anywhere, its own `%`, `_` and `\\` taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

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
        AND ($7::text IS NULL OR m.title ILIKE $7 OR EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = m.id AND p.email ILIKE $7))
      ORDER BY m.seq DESC LIMIT $3`,
    [orgId, afterSeq, limit + 1, filter.status, filter.startFrom, filter.startBefore, filter.search === null ? null : containing(filter.search)],
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

/** Starts the grace period of a live meeting whose room just emptied (kept if already running). */
export async function markEmpty(client: PoolClient, id: string, since: Date): Promise<void> {
  await client.query("UPDATE meetings SET empty_since = COALESCE(empty_since, $2) WHERE id = $1 AND status = 'live'", [id, since]);
}

/** The column that records when a meeting was closed each way. */
const CLOSED_AT = { ended: "ended_at", cancelled: "cancelled_at" } as const;

/**
 * → ended or cancelled, answering the meeting so closed; undefined when it was not scheduled or
 * live (or, with `orgId`, is another organization's). Takes the row's lock, as lockMeeting does.
 */
export async function markClosed(client: PoolClient, id: string, closed: keyof typeof CLOSED_AT, orgId?: string): Promise<StoredMeeting | undefined> {
  const { rows } = await client.query<MeetingRow>(
    `UPDATE meetings m SET status = '${closed}', ${CLOSED_AT[closed]} = now(), empty_since = NULL
      WHERE m.id = $1 AND ($2::text IS NULL OR m.org_id = $2) AND m.status IN ('scheduled', 'live')
     RETURNING ${MEETING_COLUMNS}`,
    [id, orgId ?? null],
  );
  return rows[0] ? toMeeting(rows[0]) : undefined;
}

/**
 * Meetings that are over, locked (rows another replica holds are skipped): live ones empty for
 * `graceSeconds`, live ones empty past their planned end, and scheduled ones past their planned
 * end (nobody came). Someone in the room keeps a meeting going past its planned end, and so does
 * a grant issued in the last `graceSeconds` that nobody has entered with yet: the person it was
 * issued to (a rejoin after a dropped connection, typically) is on their way in, and the media
 * server's participant_joined can take seconds to arrive.
 */
export async function claimMeetingsDueToEnd(client: PoolClient, graceSeconds: number, limit: number): Promise<{ id: string; status: MeetingStatus }[]> {
  const { rows } = await client.query<{ id: string; status: MeetingStatus }>(
    `SELECT m.id, m.status FROM meetings m
      WHERE (m.status = 'live' AND m.empty_since IS NOT NULL AND (m.empty_since <= now() - make_interval(secs => $1) OR m.planned_end <= now())
             AND NOT EXISTS (
               SELECT 1 FROM room_admissions a
                WHERE a.meeting_id = m.id AND a.created_at > now() - make_interval(secs => $1) AND a.removed_at IS NULL
                  AND NOT EXISTS (SELECT 1 FROM room_participants p WHERE p.meeting_id = m.id AND p.participant_id = a.participant_id)))
         OR (m.status = 'scheduled' AND m.planned_end IS NOT NULL AND m.planned_end <= now())
      LIMIT $2 FOR UPDATE OF m SKIP LOCKED`,
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

/** What a no-show report says of its meeting. */
interface NoShowMeeting {
  id: string;
  orgId: string;
  title: string;
  start: Date;
}

/**
 * Meetings whose no-show time has come (start + no_show_after_minutes) and that were not reported
 * yet, locked (rows another replica holds are skipped), with the invited people who have not
 * entered the room with their personal link. Cancelled meetings and meetings without a start are
 * never reported.
 */
export async function claimNoShowsDue(
  client: PoolClient,
  limit: number,
): Promise<(NoShowMeeting & { absent: { email: string; role: "host" | "attendee" }[] })[]> {
  const { rows } = await client.query<SnakeCaseRow<NoShowMeeting>>(
    `SELECT id, org_id, title, start FROM meetings
      WHERE no_show_reported_at IS NULL AND start IS NOT NULL AND status <> 'cancelled'
        AND start + make_interval(mins => no_show_after_minutes) <= now()
      ORDER BY start LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  const due = [];
  for (const row of rows) {
    const { rows: absent } = await client.query<{ email: string; role: "host" | "attendee" }>(
      `SELECT p.email, p.role FROM participants p
        WHERE p.meeting_id = $1 AND NOT EXISTS (
          SELECT 1 FROM room_admissions a JOIN room_participants r ON r.participant_id = a.participant_id AND r.meeting_id = a.meeting_id
           WHERE a.meeting_id = p.meeting_id AND lower(a.email) = lower(p.email))
        ORDER BY p.ordinal`,
      [row.id],
    );
    due.push({ ...fromSnakeCaseRow<NoShowMeeting>(row), absent });
  }
  return due;
}

/** Notes that a meeting's no-shows were reported (in the transaction that wrote them). */
export async function markNoShowsReported(client: PoolClient, id: string): Promise<void> {
  await client.query("UPDATE meetings SET no_show_reported_at = now() WHERE id = $1", [id]);
}
