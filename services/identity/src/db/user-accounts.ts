import type { Pool } from "@svc/platform";

export interface UserSignInRecord {
  userId: string;
  orgId: string;
  email: string;
  passwordHash: string;
}

/** The user with this e-mail address (case-insensitive, as users_email_key is), for signing in. */
export async function findUserByEmail(db: Pool, email: string): Promise<UserSignInRecord | undefined> {
  const { rows } = await db.query<{ id: string; org_id: string; email: string; password_hash: string }>(
    "SELECT id, org_id, email, password_hash FROM users WHERE lower(email) = lower($1)",
    [email],
  );
  const row = rows[0];
  return row && { userId: row.id, orgId: row.org_id, email: row.email, passwordHash: row.password_hash };
}

/** Who a user is, as the consent page shows it. */
export async function findUserProfile(db: Pool, userId: string): Promise<{ userId: string; orgId: string; email: string } | undefined> {
  const { rows } = await db.query<{ id: string; org_id: string; email: string }>(
    "SELECT id, org_id, email FROM users WHERE id::text = $1",
    [userId],
  );
  const row = rows[0];
  return row && { userId: row.id, orgId: row.org_id, email: row.email };
}
