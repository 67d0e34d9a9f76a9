import { inTransaction, type Pool, type PoolClient } from "@svc/platform";
import { insertOutboxEvent, type OutboxEvent } from "./outbox.ts";

export type MeetingStatus = "scheduled" | "live" | "ended";

export interface StoredMeeting {
  id: string;
  orgId: string;
  title: string;
  start: Date | null;
  /** As of now: a scheduled meeting whose start has passed is live. */
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

export interface MeetingStore {
  create(meeting: NewMeeting): Promise<StoredMeeting>;
  /** Only within `orgId`: another organization's meeting does not exist for this caller. */
  get(orgId: string, id: string): Promise<StoredMeeting | undefined>;
  /**
   * Ends the meeting and, in the same transaction, writes the event `eventFor` builds to the
   * outbox. An ended meeting is returned unchanged with `endedNow: false` and nothing written.
   */
  end(orgId: string, id: string, eventFor: (meeting: StoredMeeting) => OutboxEvent): Promise<{ meeting: StoredMeeting; endedNow: boolean } | undefined>;
  /** Newest first. */
  list(orgId: string, options: { limit: number; afterSeq: string | null }): Promise<MeetingPage>;
  /** By id alone, for the public join page (the id is the capability). */
  getForJoinPage(id: string): Promise<StoredMeeting | undefined>;
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

// The stored status is the one set at creation or end; "scheduled" turns "live" by the clock.
const SELECT_MEETING = `
  SELECT m.id, m.seq, m.org_id, m.title, m.start, m.created_at, m.ended_at, m.created_by_user_id, m.created_by_client_id,
         CASE WHEN m.status = 'scheduled' AND m.start <= now() THEN 'live' ELSE m.status END AS status,
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

export function createMeetingStore(pool: Pool): MeetingStore {
  const selectOne = async (db: Pool | PoolClient, where: string, values: unknown[]) => {
    const { rows } = await db.query<MeetingRow>(`${SELECT_MEETING} WHERE ${where}`, values);
    return rows[0] ? toMeeting(rows[0]) : undefined;
  };

  return {
    // One statement, so one round trip and atomic by itself: the meeting and its participants
    // (data-modifying CTEs; the foreign key is checked at the end of the statement).
    async create(meeting) {
      const { rows } = await pool.query<MeetingRow>(
        `WITH meeting AS (
           INSERT INTO meetings (id, org_id, created_by_user_id, created_by_client_id, title, start, status)
           VALUES ($1, $2, $3, $4, $5, $6::timestamptz, CASE WHEN $6::timestamptz > now() THEN 'scheduled' ELSE 'live' END)
           RETURNING id, seq, org_id, title, start, status, created_at, ended_at, created_by_user_id, created_by_client_id
         ), attendees AS (
           INSERT INTO participants (meeting_id, ordinal, email)
           SELECT $1, ordinality - 1, email FROM unnest($7::text[]) WITH ORDINALITY AS a(email, ordinality)
         )
         SELECT meeting.*, $7::text[] AS attendees FROM meeting`,
        [meeting.id, meeting.orgId, meeting.createdByUserId, meeting.createdByClientId, meeting.title, meeting.start, meeting.attendees],
      );
      return toMeeting(rows[0]!);
    },

    get: (orgId, id) => selectOne(pool, "m.id = $1 AND m.org_id = $2", [id, orgId]),

    end: (orgId, id, eventFor) =>
      inTransaction(pool, async (client) => {
        // The row lock of the UPDATE makes concurrent ends of one meeting queue up: exactly one
        // of them changes the row and writes the event.
        const ended = await client.query(
          `UPDATE meetings SET status = 'ended', ended_at = now()
            WHERE id = $1 AND org_id = $2 AND status <> 'ended'`,
          [id, orgId],
        );
        const meeting = await selectOne(client, "m.id = $1 AND m.org_id = $2", [id, orgId]);
        if (!meeting) return undefined;
        const endedNow = ended.rowCount === 1;
        if (endedNow) await insertOutboxEvent(client, eventFor(meeting));
        return { meeting, endedNow };
      }),

    async list(orgId, { limit, afterSeq }) {
      const { rows } = await pool.query<MeetingRow>(
        `${SELECT_MEETING} WHERE m.org_id = $1 AND ($2::bigint IS NULL OR m.seq < $2::bigint) ORDER BY m.seq DESC LIMIT $3`,
        [orgId, afterSeq, limit + 1],
      );
      const page = rows.slice(0, limit);
      return { meetings: page.map(toMeeting), nextAfterSeq: rows.length > limit ? page.at(-1)!.seq : null };
    },

    getForJoinPage: (id) => selectOne(pool, "m.id = $1", [id]),
  };
}
