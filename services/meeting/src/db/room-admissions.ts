import { fromSnakeCaseRow, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform";
import type { LinkRole } from "./join-links.ts";

/** Who one participant identity (one join grant) is. */
export interface Admission {
  participantId: string;
  meetingId: string;
  role: LinkRole;
  email: string | null;
  linkId: string | null;
  displayName: string;
  removedAt: Date | null;
}

type AdmissionRow = SnakeCaseRow<Admission>;

const COLUMNS = "participant_id, meeting_id, role, email, link_id, display_name, removed_at";

const toAdmission = fromSnakeCaseRow<Admission>;

type Queryable = Pool | PoolClient;

/** The admission a room session belongs to, within one meeting. */
export async function admissionBySession(db: Queryable, meetingId: string, sessionHash: Buffer): Promise<Admission | undefined> {
  const { rows } = await db.query<AdmissionRow>(`SELECT ${COLUMNS} FROM room_admissions WHERE meeting_id = $1 AND session_hash = $2`, [meetingId, sessionHash]);
  return rows[0] ? toAdmission(rows[0]) : undefined;
}

export async function admissionOf(db: Queryable, meetingId: string, participantId: string): Promise<Admission | undefined> {
  const { rows } = await db.query<AdmissionRow>(`SELECT ${COLUMNS} FROM room_admissions WHERE meeting_id = $1 AND participant_id = $2`, [
    meetingId,
    participantId,
  ]);
  return rows[0] ? toAdmission(rows[0]) : undefined;
}

/** Someone was removed from this meeting with this link or from this browser session. */
export async function isBarred(db: Queryable, meetingId: string, visitorHash: Buffer | null, linkId: string | null): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM room_admissions
      WHERE meeting_id = $1 AND removed_at IS NOT NULL AND (visitor_hash = $2 OR link_id = $3) LIMIT 1`,
    [meetingId, visitorHash, linkId],
  );
  return rows.length > 0;
}

/** Marks a participant removed (their link and browser session are barred from the meeting). */
export async function markRemoved(db: Queryable, meetingId: string, participantId: string): Promise<boolean> {
  const { rowCount } = await db.query("UPDATE room_admissions SET removed_at = COALESCE(removed_at, now()) WHERE meeting_id = $1 AND participant_id = $2", [
    meetingId,
    participantId,
  ]);
  return rowCount === 1;
}

/** Each participant identity's role and e-mail, for the visits of a meeting. */
export async function admissionsOf(db: Queryable, meetingId: string): Promise<Map<string, Admission>> {
  const { rows } = await db.query<AdmissionRow>(`SELECT ${COLUMNS} FROM room_admissions WHERE meeting_id = $1`, [meetingId]);
  return new Map(rows.map((row) => [row.participant_id, toAdmission(row)]));
}

/** The participant identities of the meeting's hosts who were not removed (to address data packets to). */
export async function hostsOnline(db: Queryable, meetingId: string): Promise<string[]> {
  const { rows } = await db.query<{ participant_id: string }>(
    `SELECT a.participant_id FROM room_admissions a JOIN room_participants r ON r.participant_id = a.participant_id AND r.meeting_id = a.meeting_id
      WHERE a.meeting_id = $1 AND a.role = 'host' AND a.removed_at IS NULL AND r.left_at IS NULL`,
    [meetingId],
  );
  return rows.map((row) => row.participant_id);
}
