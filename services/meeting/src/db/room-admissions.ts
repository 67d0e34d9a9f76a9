import { fromSnakeCaseRow, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import type { Admission } from "../room-store.ts";

type AdmissionRow = SnakeCaseRow<Admission>;

const COLUMNS = "participant_id, meeting_id, role, email, link_id, display_name, removed_at, admitted_from_lobby";

const toAdmission = fromSnakeCaseRow<Admission>;

type Queryable = Pool | PoolClient;

/**
 * The admission a room session belongs to, within one meeting, with when it was last active: now
 * while its participant is in the room, else the later of its grant and its last visit's end.
 */
export async function admissionBySession(db: Queryable, meetingId: string, sessionHash: Buffer): Promise<(Admission & { lastActiveAt: Date }) | undefined> {
  const { rows } = await db.query<SnakeCaseRow<Admission & { lastActiveAt: Date }>>(
    `SELECT ${COLUMNS}, GREATEST(a.created_at,
              (SELECT CASE WHEN bool_or(r.left_at IS NULL) THEN now() ELSE max(r.left_at) END
                 FROM room_participants r WHERE r.meeting_id = a.meeting_id AND r.participant_id = a.participant_id)) AS last_active_at
       FROM room_admissions a WHERE a.meeting_id = $1 AND a.session_hash = $2`,
    [meetingId, sessionHash],
  );
  return rows[0] ? fromSnakeCaseRow<Admission & { lastActiveAt: Date }>(rows[0]) : undefined;
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

/**
 * Removes a participant and, with them, every admission of the same browser session and of the
 * same personal link in this meeting (a second tab, a second grant): the participant ids removed
 * now or before, to disconnect from the media room; empty when there is no such participant.
 * Whoever of them still waits in the lobby is denied.
 */
export async function markRemoved(db: Queryable, meetingId: string, participantId: string): Promise<string[]> {
  const { rows } = await db.query<{ participant_id: string }>(
    `WITH target AS (SELECT visitor_hash, link_id FROM room_admissions WHERE meeting_id = $1 AND participant_id = $2),
          denied AS (
            UPDATE lobby_entries e SET status = 'denied', decided_at = now() FROM target t
             WHERE e.meeting_id = $1 AND e.status = 'waiting' AND (e.visitor_hash = t.visitor_hash OR e.link_id = t.link_id))
     UPDATE room_admissions a SET removed_at = COALESCE(a.removed_at, now()) FROM target t
      WHERE a.meeting_id = $1 AND (a.participant_id = $2 OR a.visitor_hash = t.visitor_hash OR a.link_id = t.link_id)
     RETURNING a.participant_id`,
    [meetingId, participantId],
  );
  return rows.map((row) => row.participant_id);
}

/** What a connection to the media room is checked against (room/room-entry.ts): the admission of its identity, its link and history. */
export interface EntryRecord {
  role: Admission["role"];
  linkId: string | null;
  admittedFromLobby: boolean;
  /** This admission, or another of its browser session or link, was removed. */
  barred: boolean;
  /** This participant identity has been in the room before (a reconnection). */
  enteredBefore: boolean;
}

export async function entryRecordOf(db: Queryable, meetingId: string, participantId: string): Promise<EntryRecord | undefined> {
  const { rows } = await db.query<SnakeCaseRow<EntryRecord>>(
    `SELECT a.role, a.link_id, a.admitted_from_lobby,
            EXISTS (SELECT 1 FROM room_admissions b
                     WHERE b.meeting_id = a.meeting_id AND b.removed_at IS NOT NULL
                       AND (b.participant_id = a.participant_id OR b.visitor_hash = a.visitor_hash OR b.link_id = a.link_id)) AS barred,
            EXISTS (SELECT 1 FROM room_participants r WHERE r.meeting_id = a.meeting_id AND r.participant_id = a.participant_id) AS entered_before
       FROM room_admissions a WHERE a.meeting_id = $1 AND a.participant_id = $2`,
    [meetingId, participantId],
  );
  return rows[0] ? fromSnakeCaseRow<EntryRecord>(rows[0]) : undefined;
}

/** The admissions with a personal link of the people in the room now (their rights follow the link). */
export async function presentLinkHolders(db: Queryable, meetingId: string): Promise<Admission[]> {
  const { rows } = await db.query<AdmissionRow>(
    `SELECT ${COLUMNS.replace(/(^|, )/g, "$1a.")} FROM room_admissions a
      WHERE a.meeting_id = $1 AND a.link_id IS NOT NULL AND a.removed_at IS NULL
        AND EXISTS (SELECT 1 FROM room_participants r WHERE r.meeting_id = a.meeting_id AND r.participant_id = a.participant_id AND r.left_at IS NULL)`,
    [meetingId],
  );
  return rows.map(toAdmission);
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

/**
 * The role of the admissions a host's "make co-host" changed, for the rest of the meeting: every
 * admission with a personal link for `email` (their link's role follows the meeting's `hosts`
 * anyway; this keeps the lobby's knocks reaching them, hostsOnline), or the one admission
 * `participantId` of someone who entered by the plain URL (whose role is the admission's).
 */
export async function setAdmissionRole(
  db: Queryable,
  meetingId: string,
  who: { email: string } | { participantId: string },
  role: Admission["role"],
): Promise<void> {
  if ("email" in who)
    await db.query("UPDATE room_admissions SET role = $3 WHERE meeting_id = $1 AND lower(email) = lower($2) AND link_id IS NOT NULL", [
      meetingId,
      who.email,
      role,
    ]);
  else await db.query("UPDATE room_admissions SET role = $3 WHERE meeting_id = $1 AND participant_id = $2", [meetingId, who.participantId, role]);
}
