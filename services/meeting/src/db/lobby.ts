import { fromSnakeCaseRow, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform";

export type LobbyStatus = "waiting" | "admitted" | "denied";

export interface LobbyEntryRecord {
  id: string;
  meetingId: string;
  displayName: string;
  role: "attendee" | "guest";
  email: string | null;
  linkId: string | null;
  visitorHash: Buffer | null;
  status: LobbyStatus;
  createdAt: Date;
}

type EntryRow = SnakeCaseRow<LobbyEntryRecord>;

const COLUMNS = "id, meeting_id, display_name, role, email, link_id, visitor_hash, status, created_at";

const toEntry = fromSnakeCaseRow<LobbyEntryRecord>;

type Queryable = Pool | PoolClient;

export async function insertLobbyEntry(db: Queryable, entry: Omit<LobbyEntryRecord, "status" | "createdAt"> & { ticketHash: Buffer }): Promise<void> {
  await db.query(
    "INSERT INTO lobby_entries (id, meeting_id, ticket_hash, display_name, role, email, link_id, visitor_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    [entry.id, entry.meetingId, entry.ticketHash, entry.displayName, entry.role, entry.email, entry.linkId, entry.visitorHash],
  );
}

/** The entry a ticket belongs to, within one meeting. */
export async function lobbyEntryByTicket(db: Queryable, meetingId: string, ticketHash: Buffer): Promise<LobbyEntryRecord | undefined> {
  const { rows } = await db.query<EntryRow>(`SELECT ${COLUMNS} FROM lobby_entries WHERE meeting_id = $1 AND ticket_hash = $2`, [meetingId, ticketHash]);
  return rows[0] ? toEntry(rows[0]) : undefined;
}

/** Who is waiting, longest first. */
export async function waitingEntries(db: Queryable, meetingId: string): Promise<LobbyEntryRecord[]> {
  const { rows } = await db.query<EntryRow>(
    `SELECT ${COLUMNS} FROM lobby_entries WHERE meeting_id = $1 AND status = 'waiting' ORDER BY created_at, id LIMIT 200`,
    [meetingId],
  );
  return rows.map(toEntry);
}

/** Admits or denies a waiting entry; the entry's status after (undefined: no such entry). A decision stands once made. */
export async function decideLobbyEntry(db: Queryable, meetingId: string, entryId: string, admit: boolean): Promise<LobbyStatus | undefined> {
  const { rows } = await db.query<{ status: LobbyStatus }>(
    `WITH decided AS (
       UPDATE lobby_entries SET status = $3, decided_at = now() WHERE meeting_id = $1 AND id = $2 AND status = 'waiting' RETURNING status)
     SELECT status FROM decided UNION ALL SELECT status FROM lobby_entries WHERE meeting_id = $1 AND id = $2 AND NOT EXISTS (SELECT 1 FROM decided)`,
    [meetingId, entryId, admit ? "admitted" : "denied"],
  );
  return rows[0]?.status;
}
