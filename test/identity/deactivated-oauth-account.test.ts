import { randomUUID } from "node:crypto";
import { createLogger, hashToken } from "@svc/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgOAuthArtifactStore } from "../../services/identity/src/db/pg-oauth-artifact-store.ts";
import { findUserProfile } from "../../services/identity/src/db/user-accounts.ts";
import { createServiceDatabase, type ServiceDatabase } from "../support/service-database.ts";

// Issue 33 ("Also"): a deactivated user kept their 24-hour OAuth browser session and the provider's
// account lookup still found them, so they could approve a grant. Against the real schema.
let database: ServiceDatabase;
beforeAll(async () => {
  database = await createServiceDatabase("identity", createLogger("test", "silent"));
});
afterAll(async () => database?.drop());

async function userIn(orgId: string, deactivated: boolean): Promise<string> {
  const userId = randomUUID();
  await database.pool.query("INSERT INTO users (id, org_id, email, password_hash, deactivated_at) VALUES ($1, $2, $3, 'x', $4)", [
    userId,
    orgId,
    `${userId}@example.com`,
    deactivated ? new Date() : null,
  ]);
  return userId;
}

describe("a deactivated user and OAuth", () => {
  it("the account lookup (findAccount, the consent page) does not find a deactivated user", async () => {
    const orgId = randomUUID();
    await database.pool.query("INSERT INTO organizations (id, name) VALUES ($1, 'Org')", [orgId]);
    const active = await userIn(orgId, false);
    const deactivated = await userIn(orgId, true);
    expect(await findUserProfile(database.pool, active)).toMatchObject({ userId: active, orgId, organizationName: "Org" });
    expect(await findUserProfile(database.pool, deactivated)).toBeUndefined();
  });

  it("ending a user's OAuth browser sessions deletes their sessions and interactions, and nobody else's", async () => {
    const artifacts = pgOAuthArtifactStore(database.pool);
    const [user, other] = [randomUUID(), randomUUID()];
    const store = (model: string, payload: object, sessionUid?: string) => artifacts.upsert(model, hashToken(randomUUID()), payload, { sessionUid }, 3600);
    await store("Session", { accountId: user, uid: "s1" }, "s1");
    await store("Session", { accountId: other, uid: "s2" }, "s2");
    await store("Interaction", { session: { accountId: user, uid: "s1" }, prompt: { name: "consent" } });
    await store("Interaction", { result: { login: { accountId: user } } });
    await store("Interaction", { session: { accountId: other, uid: "s2" } });
    const left = async (accountId: string) =>
      (
        await database.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM oauth_artifacts WHERE payload->>'accountId' = $1 OR payload->'session'->>'accountId' = $1 OR payload->'result'->'login'->>'accountId' = $1`,
          [accountId],
        )
      ).rows[0]!.n;
    expect(await left(user)).toBe(3);
    expect(await artifacts.endBrowserSessionsOf(user)).toBe(3);
    expect(await left(user)).toBe(0);
    expect(await left(other)).toBe(2);
  });
});
