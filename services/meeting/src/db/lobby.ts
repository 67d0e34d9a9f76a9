import { fromSnakeCaseRow, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import type { LobbyStatus, LobbyEntryRecord } from "../room-store.ts";

type EntryRow = SnakeCaseRow<LobbyEntryRecord>;

const COLUMNS = "id, meeting_id, display_name, role, email, link_id, visitor_hash, status, created_at";

const toEntry = fromSnakeCaseRow<LobbyEntryRecord>;

type Queryable = Pool | PoolClient;

export type NewLobbyEntry = Omit<LobbyEntryRecord, "status" | "createdAt"> & { ticketHash: Buffer; addressHash: Buffer };

/**
 * Puts someone in the lobby, once: a browser session (or a personal link) that already waits
 * keeps its place and gets the new ticket (the old one stops working), so asking again never
 * adds a second entry. `full` when `perAddress` people already wait from the same address.
 */
export async function enterLobby(db: Queryable, entry: NewLobbyEntry, perAddress: number): Promise<"entered" | "replaced" | "full"> {
  const replaced = await db.query(
    `UPDATE lobby_entries SET ticket_hash = $3, display_name = $4, role = $5, email = $6, link_id = $7, address_hash = $8
      WHERE id = (SELECT id FROM lobby_entries WHERE meeting_id = $1 AND status = 'waiting' AND (visitor_hash = $2 OR link_id = $7)
                   ORDER BY created_at LIMIT 1 FOR UPDATE)`,
    [entry.meetingId, entry.visitorHash, entry.ticketHash, entry.displayName, entry.role, entry.email, entry.linkId, entry.addressHash],
  );
  if (replaced.rowCount === 1) return "replaced";
  const inserted = await db.query(
    `INSERT INTO lobby_entries (id, meeting_id, ticket_hash, display_name, role, email, link_id, visitor_hash, address_hash)
     SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9
      WHERE (SELECT count(*) FROM lobby_entries WHERE meeting_id = $2 AND status = 'waiting' AND address_hash = $9) < $10`,
    [entry.id, entry.meetingId, entry.ticketHash, entry.displayName, entry.role, entry.email, entry.linkId, entry.visitorHash, entry.addressHash, perAddress],
  );
  return inserted.rowCount === 1 ? "entered" : "full";
}

/** The entry a ticket belongs to, within one meeting. */
export async function lobbyEntryByTicket(db: Queryable, meetingId: string, ticketHash: Buffer): Promise<LobbyEntryRecord | undefined> {
  const { rows } = await db.query<EntryRow>(`SELECT ${COLUMNS} FROM lobby_entries WHERE meeting_id = $1 AND ticket_hash = $2`, [meetingId, ticketHash]);
  return rows[0] ? toEntry(rows[0]) : undefined;
}

/** How many are listed to a host at most: half of them the longest waiting, half the newest arrivals. */
export const LOBBY_LIST_LIMIT = 200;

/**
 * Who is waiting, longest first, and how many in all. When more wait than the list holds, it
 * shows the longest waiting and the newest arrivals, so a real late arrival never disappears
 * behind a flood.
 */
export async function waitingEntries(db: Queryable, meetingId: string): Promise<{ entries: LobbyEntryRecord[]; count: number }> {
  const half = LOBBY_LIST_LIMIT / 2;
  const { rows } = await db.query<EntryRow & { total: number }>(
    `SELECT * FROM (
       SELECT ${COLUMNS}, count(*) OVER ()::int AS total, row_number() OVER (ORDER BY created_at, id) AS position
         FROM lobby_entries WHERE meeting_id = $1 AND status = 'waiting') waiting
      WHERE position <= $2 OR position > total - $2 ORDER BY position`,
    [meetingId, half],
  );
  return { entries: rows.map(toEntry), count: rows[0]?.total ?? 0 };
}

/** Denies everyone waiting; how many that was. */
export async function denyAllWaiting(db: Queryable, meetingId: string): Promise<number> {
  const { rowCount } = await db.query("UPDATE lobby_entries SET status = 'denied', decided_at = now() WHERE meeting_id = $1 AND status = 'waiting'", [
    meetingId,
  ]);
  return rowCount ?? 0;
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
