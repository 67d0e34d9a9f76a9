import { randomUUID } from "node:crypto";
import { fromSnakeCaseRow, type Pool, type SnakeCaseRow } from "@svc/platform/db";
import type { ApiKeyRecord } from "../account-stores.ts";

type ApiKeyRow = SnakeCaseRow<ApiKeyRecord>;

const COLUMNS = "id AS key_id, user_id, org_id, name, display_prefix, created_at, last_used_at, revoked_at";

const toRecord = fromSnakeCaseRow<ApiKeyRecord>;

export async function insertApiKey(
  db: Pool,
  key: { userId: string; orgId: string; name: string; displayPrefix: string; keyHash: string },
): Promise<ApiKeyRecord> {
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, user_id, org_id, name, display_prefix, key_hash)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [randomUUID(), key.userId, key.orgId, key.name, key.displayPrefix, key.keyHash],
  );
  return toRecord(rows[0]!);
}

/** The user's keys, revoked ones included, oldest first. */
export async function listApiKeysOfUser(db: Pool, userId: string): Promise<ApiKeyRecord[]> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
  return rows.map(toRecord);
}

/**
 * Marks the key revoked (only if `ownerId` owns it, when given) (keeping the first revocation time when it already was) and returns
 * its hash, so the caller can invalidate the verification cache; undefined when no such key.
 */
export async function revokeApiKey(db: Pool, keyId: string, ownerId?: string): Promise<{ keyHash: string } | undefined> {
  const { rows } = await db.query<SnakeCaseRow<{ keyHash: string }>>(
    "UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 AND ($2::uuid IS NULL OR user_id = $2) RETURNING key_hash",
    [keyId, ownerId ?? null],
  );
  return rows[0] && fromSnakeCaseRow<{ keyHash: string }>(rows[0]);
}

/** A key that verifies: whose it is and the role its user has now. */
export interface ActiveApiKey {
  keyId: string;
  userId: string;
  orgId: string;
  role: "admin" | "member";
}

/** The unrevoked key with this hash (the hash is the unique index) of an active user, or undefined. */
export async function findActiveApiKeyByHash(db: Pool, keyHash: string): Promise<ActiveApiKey | undefined> {
  const { rows } = await db.query<SnakeCaseRow<ActiveApiKey>>(
    `SELECT k.id AS key_id, k.user_id, k.org_id, u.role FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND u.deactivated_at IS NULL`,
    [keyHash],
  );
  return rows[0] && fromSnakeCaseRow<ActiveApiKey>(rows[0]);
}

/** One key of the user (another user's key is undefined, like an unknown one). */
export async function findApiKeyOfUser(db: Pool, userId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND user_id = $2`, [keyId, userId]);
  return rows[0] && toRecord(rows[0]);
}

/** Records many keys' latest use in one statement; never moves a key's time backwards. */
export async function recordApiKeyUses(db: Pool, uses: Map<string, Date>): Promise<void> {
  await db.query(
    `UPDATE api_keys AS k SET last_used_at = u.used_at
     FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, used_at)
     WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.used_at)`,
    [[...uses.keys()], [...uses.values()]],
  );
}
