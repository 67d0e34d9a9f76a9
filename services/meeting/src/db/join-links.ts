import { fromSnakeCaseRow, type Pool, type PoolClient, type SnakeCaseRow } from "@svc/platform/db";
import type { JoinLinkRecord, ListedJoinLink } from "../join-link-store.ts";

type LinkRow = SnakeCaseRow<JoinLinkRecord>;

const COLUMNS = "id, meeting_id, role, email, name, expires_at, revoked_at";

const toLink = fromSnakeCaseRow<JoinLinkRecord>;

type Queryable = Pool | PoolClient;

/** Stores a link by the SHA-256 of its secret (the secret itself is never stored). */
export async function insertJoinLink(db: Queryable, link: Omit<JoinLinkRecord, "revokedAt"> & { secretHash: Buffer }): Promise<void> {
  await db.query("INSERT INTO join_links (id, meeting_id, secret_hash, role, email, name, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
    link.id,
    link.meetingId,
    link.secretHash,
    link.role,
    link.email,
    link.name,
    link.expiresAt,
  ]);
}

/** The link whose secret hashes to `secretHash`, whatever its meeting and state (the caller judges). */
export async function findJoinLink(db: Queryable, secretHash: Buffer): Promise<JoinLinkRecord | undefined> {
  const { rows } = await db.query<LinkRow>(`SELECT ${COLUMNS} FROM join_links WHERE secret_hash = $1`, [secretHash]);
  return rows[0] ? toLink(rows[0]) : undefined;
}

export async function findJoinLinkById(db: Queryable, linkId: string): Promise<JoinLinkRecord | undefined> {
  const { rows } = await db.query<LinkRow>(`SELECT ${COLUMNS} FROM join_links WHERE id = $1`, [linkId]);
  return rows[0] ? toLink(rows[0]) : undefined;
}

/** How many links a meeting's list shows at most (newest first). */
export const LINK_LIST_LIMIT = 1_000;

/** A meeting's links, newest first, with when each was made. */
export async function joinLinksOf(db: Queryable, meetingId: string): Promise<ListedJoinLink[]> {
  const { rows } = await db.query<SnakeCaseRow<ListedJoinLink>>(
    `SELECT ${COLUMNS}, created_at FROM join_links WHERE meeting_id = $1 ORDER BY created_at DESC, id LIMIT $2`,
    [meetingId, LINK_LIST_LIMIT],
  );
  return rows.map(fromSnakeCaseRow<ListedJoinLink>);
}

/** Revokes a link of a meeting: `revoked` now, `already` revoked, or undefined when there is no such link. */
export async function revokeJoinLink(db: Queryable, meetingId: string, linkId: string): Promise<"revoked" | "already" | undefined> {
  const { rows } = await db.query<{ revoked_now: boolean }>(
    `WITH target AS (SELECT id, revoked_at FROM join_links WHERE id = $2 AND meeting_id = $1 FOR UPDATE),
          revoked AS (UPDATE join_links SET revoked_at = now() WHERE id IN (SELECT id FROM target WHERE revoked_at IS NULL) RETURNING id)
     SELECT EXISTS (SELECT 1 FROM revoked) AS revoked_now FROM target`,
    [meetingId, linkId],
  );
  if (!rows[0]) return undefined;
  return rows[0].revoked_now ? "revoked" : "already";
}
