import { randomUUID } from "node:crypto";
import type { Pool } from "@svc/platform";
import { FOREIGN_KEY_VIOLATION, sqlState, UNIQUE_VIOLATION } from "./postgres-errors.ts";

export type InsertUserResult = { userId: string } | { problem: "organization_not_found" | "email_taken" };

export async function insertUser(db: Pool, user: { orgId: string; email: string; passwordHash: string }): Promise<InsertUserResult> {
  const id = randomUUID();
  try {
    await db.query("INSERT INTO users (id, org_id, email, password_hash) VALUES ($1, $2, $3, $4)", [
      id,
      user.orgId,
      user.email,
      user.passwordHash,
    ]);
    return { userId: id };
  } catch (error) {
    if (sqlState(error) === FOREIGN_KEY_VIOLATION) return { problem: "organization_not_found" };
    if (sqlState(error) === UNIQUE_VIOLATION) return { problem: "email_taken" };
    throw error;
  }
}

export async function findUser(db: Pool, userId: string): Promise<{ userId: string; orgId: string } | undefined> {
  const { rows } = await db.query<{ id: string; org_id: string }>("SELECT id, org_id FROM users WHERE id = $1", [userId]);
  return rows[0] && { userId: rows[0].id, orgId: rows[0].org_id };
}
