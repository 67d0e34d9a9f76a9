import type { Pool, PoolClient } from "@svc/platform/db";
import { MEETING_COLUMNS, toMeeting, type MeetingRow } from "./meetings.ts";
import type { StoredMeeting } from "../meeting-store.ts";

type Queryable = Pool | PoolClient;

/** What a join grant checks about a meeting, read in one round trip. */
export interface JoinState {
  meeting: StoredMeeting;
  /** Someone was removed from the meeting from this browser session (`visitorHash`) or with this link. */
  barred: boolean;
  /** People in the room now. */
  present: number;
}

/**
 * The meeting, whether this browser session was removed from it, and how many people are in its
 * room: one statement for what would be three reads (getMeeting, isBarred, countPresent), since
 * every join grant needs all three. Undefined when there is no such meeting.
 */
export async function readJoinState(db: Queryable, meetingId: string, visitorHash: Buffer | null, linkId: string | null): Promise<JoinState | undefined> {
  const { rows } = await db.query<MeetingRow & { barred: boolean; present: number }>(
    `SELECT ${MEETING_COLUMNS},
            EXISTS (SELECT 1 FROM room_admissions a WHERE a.meeting_id = m.id AND a.removed_at IS NOT NULL AND (a.visitor_hash = $2 OR a.link_id = $3)) AS barred,
            (SELECT count(*)::int FROM room_participants r WHERE r.meeting_id = m.id AND r.left_at IS NULL) AS present
       FROM meetings m WHERE m.id = $1`,
    [meetingId, visitorHash, linkId],
  );
  if (!rows[0]) return undefined;
  const { barred, present, ...meeting } = rows[0];
  return { meeting: toMeeting(meeting), barred, present };
}

/** Who a new participant identity is (room_admissions), as a join grant records it. */
export interface NewAdmission {
  participantId: string;
  meetingId: string;
  role: string;
  email: string | null;
  linkId: string | null;
  displayName: string;
  visitorHash: Buffer | null;
  sessionHash: Buffer;
  admittedFromLobby: boolean;
}

/**
 * Admits the participant and records that a join grant opens the meeting's media room
 * (room_opened_at): false, with nothing written, when the meeting has closed meanwhile. Each
 * statement is atomic by itself and locks the meeting row, so it is ordered with an end or a
 * cancellation: one that comes after sees the room and closes it.
 *
 * The usual grant finds the room already open and takes a share lock: concurrent grants into one
 * meeting do not wait for each other (an update's row lock is held until its commit is flushed,
 * which made 50 concurrent grants into one meeting queue at about 10 ms each), while an end,
 * which updates the row, still waits for them. Only the grant that opens the room updates it.
 */
export async function openRoomAndAdmit(db: Queryable, admission: NewAdmission): Promise<boolean> {
  return (await admitIntoOpenRoom(db, admission)) || (await openRoomAndAdmitFirst(db, admission));
}

const admissionValues = (admission: NewAdmission) => [
  admission.participantId,
  admission.meetingId,
  admission.role,
  admission.email,
  admission.linkId,
  admission.displayName,
  admission.visitorHash,
  admission.sessionHash,
  admission.admittedFromLobby,
];

async function admitIntoOpenRoom(db: Queryable, admission: NewAdmission): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO room_admissions (participant_id, meeting_id, role, email, link_id, display_name, visitor_hash, session_hash, admitted_from_lobby)
     SELECT $1, m.id, $3, $4, $5, $6, $7, $8, $9 FROM meetings m
      WHERE m.id = $2 AND m.status IN ('scheduled', 'live') AND m.room_opened_at IS NOT NULL
      FOR SHARE OF m`,
    admissionValues(admission),
  );
  return rowCount === 1;
}

async function openRoomAndAdmitFirst(db: Queryable, admission: NewAdmission): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH opened AS (
       UPDATE meetings SET room_opened_at = COALESCE(room_opened_at, now()) WHERE id = $2 AND status IN ('scheduled', 'live') RETURNING id
     )
     INSERT INTO room_admissions (participant_id, meeting_id, role, email, link_id, display_name, visitor_hash, session_hash, admitted_from_lobby)
     SELECT $1, opened.id, $3, $4, $5, $6, $7, $8, $9 FROM opened`,
    admissionValues(admission),
  );
  return rowCount === 1;
}

/** Takes back an admission whose grant was never handed out (the media server could not open the room). */
export async function withdrawAdmission(db: Queryable, participantId: string): Promise<void> {
  await db.query("DELETE FROM room_admissions WHERE participant_id = $1", [participantId]);
}
