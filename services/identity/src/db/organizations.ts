import { randomUUID } from "node:crypto";
import type { Pool } from "@svc/platform/db";

export async function insertOrganization(db: Pick<Pool, "query">, name: string): Promise<string> {
  const id = randomUUID();
  await db.query("INSERT INTO organizations (id, name) VALUES ($1, $2)", [id, name]);
  return id;
}
