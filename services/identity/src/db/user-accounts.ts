import type { Pool } from "@svc/platform/db";
import type { UserRole } from "./users.ts";

export interface UserSignInRecord {
  userId: string;
  orgId: string;
  email: string;
  passwordHash: string;
  role: UserRole;
  deactivated: boolean;
}

/** The user with this e-mail address (case-insensitive, as users_email_key is), for signing in. */
export async function findUserByEmail(db: Pool, email: string): Promise<UserSignInRecord | undefined> {
  const { rows } = await db.query<{ id: string; org_id: string; email: string; password_hash: string; role: UserRole; deactivated_at: Date | null }>(
    "SELECT id, org_id, email, password_hash, role, deactivated_at FROM users WHERE lower(email) = lower($1)",
    [email],
  );
  const row = rows[0];
  return (
    row && {
      userId: row.id,
      orgId: row.org_id,
      email: row.email,
      passwordHash: row.password_hash,
      role: row.role,
      deactivated: row.deactivated_at !== null,
    }
  );
}

/** Who a user is, as the consent page and the dashboard show it. */
export interface UserProfile {
  userId: string;
  orgId: string;
  email: string;
  organizationName: string;
  role: UserRole;
}

/**
 * The active user with this id: oidc-provider's account lookup (findAccount) and the consent page.
 * A deactivated user is no account at all there, so a browser session opened before the
 * deactivation can neither approve a grant nor have a code exchanged for tokens.
 */
export async function findUserProfile(db: Pool, userId: string): Promise<UserProfile | undefined> {
  const { rows } = await db.query<{ id: string; org_id: string; email: string; name: string; role: UserRole }>(
    "SELECT u.id, u.org_id, u.email, o.name, u.role FROM users u JOIN organizations o ON o.id = u.org_id WHERE u.id::text = $1 AND u.deactivated_at IS NULL",
    [userId],
  );
  const row = rows[0];
  return row && { userId: row.id, orgId: row.org_id, email: row.email, organizationName: row.name, role: row.role };
}
