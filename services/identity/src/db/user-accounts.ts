import { fromSnakeCaseRow, type Pool, type SnakeCaseRow } from "@svc/platform/db";
import type { UserRole, UserProfile } from "../account-stores.ts";

export interface UserSignInRecord {
  userId: string;
  orgId: string;
  email: string;
  passwordHash: string;
  role: UserRole;
  deactivated: boolean;
}

/** The one user `sql` finds by `value` ($1), as the record its columns name; undefined when none. */
async function oneUser<Fields>(db: Pool, sql: string, value: string): Promise<Fields | undefined> {
  const { rows } = await db.query<SnakeCaseRow<Fields>>(sql, [value]);
  return rows[0] && fromSnakeCaseRow<Fields>(rows[0]);
}

/** The user with this e-mail address (case-insensitive, as users_email_key is), for signing in. */
export async function findUserByEmail(db: Pool, email: string): Promise<UserSignInRecord | undefined> {
  // `deactivated` is derived from the column, not renamed: whether deactivated_at is set.
  return oneUser<UserSignInRecord>(
    db,
    "SELECT id AS user_id, org_id, email, password_hash, role, deactivated_at IS NOT NULL AS deactivated FROM users WHERE lower(email) = lower($1)",
    email,
  );
}

/**
 * The active user with this id: oidc-provider's account lookup (findAccount) and the consent page.
 * A deactivated user is no account at all there, so a browser session opened before the
 * deactivation can neither approve a grant nor have a code exchanged for tokens.
 */
export async function findUserProfile(db: Pool, userId: string): Promise<UserProfile | undefined> {
  return oneUser<UserProfile>(
    db,
    "SELECT u.id AS user_id, u.org_id, u.email, o.name AS organization_name, u.role FROM users u JOIN organizations o ON o.id = u.org_id WHERE u.id::text = $1 AND u.deactivated_at IS NULL",
    userId,
  );
}
