import { randomUUID } from "node:crypto";
import { fromSnakeCaseRow, type Pool, type SnakeCaseRow } from "@svc/platform/db";
import { FOREIGN_KEY_VIOLATION, sqlState, UNIQUE_VIOLATION } from "./postgres-errors.ts";
import type { UserRole, UserRecord, InsertUserResult } from "../account-stores.ts";

type UserRow = SnakeCaseRow<UserRecord>;

const COLUMNS = "id AS user_id, org_id, email, role, created_at, deactivated_at";
const toRecord = fromSnakeCaseRow<UserRecord>;

type Queryable = Pick<Pool, "query">;

export async function insertUser(db: Queryable, user: { orgId: string; email: string; passwordHash: string; role: UserRole }): Promise<InsertUserResult> {
  const id = randomUUID();
  try {
    await db.query("INSERT INTO users (id, org_id, email, password_hash, role) VALUES ($1, $2, $3, $4, $5)", [
      id,
      user.orgId,
      user.email,
      user.passwordHash,
      user.role,
    ]);
    return { userId: id };
  } catch (error) {
    if (sqlState(error) === FOREIGN_KEY_VIOLATION) return { problem: "organization_not_found" };
    if (sqlState(error) === UNIQUE_VIOLATION) return { problem: "email_taken" };
    throw error;
  }
}

export async function findUser(db: Pool, userId: string): Promise<{ userId: string; orgId: string } | undefined> {
  const { rows } = await db.query<SnakeCaseRow<{ userId: string; orgId: string }>>("SELECT id AS user_id, org_id FROM users WHERE id = $1", [userId]);
  return rows[0] && fromSnakeCaseRow<{ userId: string; orgId: string }>(rows[0]);
}

/** The user of this organization (another organization's user is undefined, like an unknown one). */
export async function findUserInOrg(db: Pool, orgId: string, userId: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = $1 AND org_id = $2`, [userId, orgId]);
  return rows[0] && toRecord(rows[0]);
}

export async function listUsersOfOrg(db: Pool, orgId: string): Promise<UserRecord[]> {
  const { rows } = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE org_id = $1 ORDER BY created_at, id`, [orgId]);
  return rows.map(toRecord);
}

/** Changes role and/or deactivation of a user of this organization; undefined when there is none. */
export async function updateUserInOrg(
  db: Pool,
  orgId: string,
  userId: string,
  change: { role?: UserRole; deactivated?: boolean },
): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRow>(
    `UPDATE users SET role = coalesce($3, role),
            deactivated_at = CASE WHEN $4::boolean IS NULL THEN deactivated_at
                                  WHEN $4 THEN coalesce(deactivated_at, now()) ELSE NULL END
      WHERE id = $1 AND org_id = $2 RETURNING ${COLUMNS}`,
    [userId, orgId, change.role ?? null, change.deactivated ?? null],
  );
  return rows[0] && toRecord(rows[0]);
}

/** Hashes of every credential of a user that the verification cache may hold: API keys and OAuth access tokens. */
export async function cachedCredentialHashesOfUser(db: Pool, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ hash: string }>(
    `SELECT key_hash AS hash FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL
     UNION ALL
     SELECT id_hash FROM oauth_artifacts WHERE model = 'AccessToken' AND payload->>'accountId' = $1::text AND expires_at > now()`,
    [userId],
  );
  return rows.map((row) => row.hash);
}
