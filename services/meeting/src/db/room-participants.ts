import { fromSnakeCaseRow, type BatchedPurge, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import type { RoomVisit } from "../visit-store.ts";

type VisitColumns = Omit<RoomVisit, "role" | "email">;

/** The visit's columns; with the role and e-mail of its admission when a query joins them (null: a grant from before roles). */
type VisitRow = SnakeCaseRow<VisitColumns> & { role?: "host" | "attendee" | "guest" | null; email?: string | null };

const COLUMNS = "meeting_id, session_id, participant_id, display_name, joined_at, left_at";

const toVisit = ({ role, email, ...visit }: VisitRow): RoomVisit => ({
  ...fromSnakeCaseRow<VisitColumns>(visit),
  ...(role === undefined ? {} : { role: role ?? "guest", email: email ?? null }),
});

/**
 * Records a visit. Returns it when it is new; undefined when the session was already recorded
 * (a redelivered or late join, possibly after its leave).
 */
export async function insertVisit(client: PoolClient, visit: RoomVisit): Promise<RoomVisit | undefined> {
  const { rows } = await client.query<VisitRow>(
    `INSERT INTO room_participants (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (meeting_id, session_id) DO NOTHING RETURNING ${COLUMNS}`,
    [visit.meetingId, visit.sessionId, visit.participantId, visit.displayName, visit.joinedAt, visit.leftAt],
  );
  return rows[0] ? toVisit(rows[0]) : undefined;
}

/** Ends an open visit; undefined when it was not open (already left, or never recorded). */
export async function closeVisit(client: PoolClient, meetingId: string, sessionId: string, leftAt: Date): Promise<RoomVisit | undefined> {
  const { rows } = await client.query<VisitRow>(
    `UPDATE room_participants SET left_at = GREATEST(joined_at, $3)
      WHERE meeting_id = $1 AND session_id = $2 AND left_at IS NULL RETURNING ${COLUMNS}`,
    [meetingId, sessionId, leftAt],
  );
  return rows[0] ? toVisit(rows[0]) : undefined;
}

/** Ends every open visit of a meeting (its room closed or the meeting ended); returns them. */
export async function closeAllVisits(client: PoolClient, meetingId: string, leftAt: Date): Promise<RoomVisit[]> {
  const { rows } = await client.query<VisitRow>(
    `UPDATE room_participants SET left_at = GREATEST(joined_at, $2)
      WHERE meeting_id = $1 AND left_at IS NULL RETURNING ${COLUMNS}`,
    [meetingId, leftAt],
  );
  return rows.map(toVisit);
}

/** Every visit of a meeting with who it was (role, e-mail of a personal link), oldest first. */
export async function visitsOf(db: Pool | PoolClient, meetingId: string): Promise<RoomVisit[]> {
  const { rows } = await db.query<VisitRow>(
    `SELECT ${VISIT_WITH_PERSON} FROM room_participants r LEFT JOIN room_admissions a ON a.participant_id = r.participant_id
      WHERE r.meeting_id = $1 ORDER BY r.joined_at, r.session_id`,
    [meetingId],
  );
  return rows.map(toVisit);
}

const VISIT_WITH_PERSON = "r.meeting_id, r.session_id, r.participant_id, r.display_name, r.joined_at, r.left_at, a.role, a.email";

/** One page of a meeting's visits with who it was, oldest first; `after` is the last (joined_at, session_id) seen. */
export async function visitsPage(
  db: Pool | PoolClient,
  meetingId: string,
  { limit, after }: { limit: number; after: { joinedAt: Date; sessionId: string } | null },
): Promise<{ visits: RoomVisit[]; more: boolean }> {
  const { rows } = await db.query<VisitRow>(
    `SELECT ${VISIT_WITH_PERSON} FROM room_participants r LEFT JOIN room_admissions a ON a.participant_id = r.participant_id
      WHERE r.meeting_id = $1 AND ($2::timestamptz IS NULL OR (r.joined_at, r.session_id) > ($2::timestamptz, $3::text))
      ORDER BY r.joined_at, r.session_id LIMIT $4`,
    [meetingId, after?.joinedAt ?? null, after?.sessionId ?? "", limit + 1],
  );
  return { visits: rows.slice(0, limit).map(toVisit), more: rows.length > limit };
}

/** Who a participant identity is (role, e-mail), to name them in participant events. */
export async function personOf(db: Pool | PoolClient, participantId: string): Promise<Pick<RoomVisit, "role" | "email">> {
  const { rows } = await db.query<{ role: "host" | "attendee" | "guest"; email: string | null }>(
    "SELECT role, email FROM room_admissions WHERE participant_id = $1",
    [participantId],
  );
  return rows[0] ? { role: rows[0].role, email: rows[0].email } : { role: "guest", email: null };
}

/** Visits still open. */
export async function presentVisits(db: Pool | PoolClient, meetingId: string): Promise<RoomVisit[]> {
  const { rows } = await db.query<VisitRow>(`SELECT ${COLUMNS} FROM room_participants WHERE meeting_id = $1 AND left_at IS NULL`, [meetingId]);
  return rows.map(toVisit);
}

export async function countPresent(db: Pool | PoolClient, meetingId: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>("SELECT count(*)::int AS count FROM room_participants WHERE meeting_id = $1 AND left_at IS NULL", [
    meetingId,
  ]);
  return rows[0]!.count;
}

/** Notes a media-server webhook as applied; false when it already was (a redelivery or a replay). */
export async function markWebhookApplied(client: PoolClient, id: string): Promise<boolean> {
  const result = await client.query("INSERT INTO media_webhook_events (id) VALUES ($1) ON CONFLICT DO NOTHING", [id]);
  return result.rowCount === 1;
}

/** Applied media-server webhook ids older than `$2` hours (a redelivery never comes that late). For `purgeInBatches`. */
export const appliedWebhookIds: BatchedPurge = {
  name: "media_webhook_events",
  sql: `DELETE FROM media_webhook_events WHERE id IN (
          SELECT id FROM media_webhook_events WHERE received_at < now() - make_interval(hours => $2) ORDER BY received_at LIMIT $1)`,
};

/** The visits of several meetings with who each was, oldest first, by meeting id (a list page's in one query). */
export async function visitsOfMeetings(db: Pool | PoolClient, meetingIds: string[]): Promise<Map<string, RoomVisit[]>> {
  const byMeeting = new Map<string, RoomVisit[]>(meetingIds.map((id) => [id, []]));
  if (meetingIds.length === 0) return byMeeting;
  const { rows } = await db.query<VisitRow>(
    `SELECT ${VISIT_WITH_PERSON} FROM room_participants r LEFT JOIN room_admissions a ON a.participant_id = r.participant_id
      WHERE r.meeting_id = ANY($1::text[]) ORDER BY r.joined_at, r.session_id`,
    [meetingIds],
  );
  for (const visit of rows.map(toVisit)) byMeeting.get(visit.meetingId)?.push(visit);
  return byMeeting;
}
