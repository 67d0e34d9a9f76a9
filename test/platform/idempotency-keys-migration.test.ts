// The idempotency_keys table is defined once, by the platform (services/platform/migrations/
// idempotency_keys), since issue 47; before, meeting and webhook each created their own, and they
// had drifted (only webhook's had subject_id). A schema created before the move must keep every
// key through the platform's migration: a retry after the upgrade still gets the first reply.
import path from "node:path";
import { createLogger } from "@svc/platform";
import { createPool, deleteIdempotentReplies, inTransaction, migrateServiceSchema, runIdempotently, type IdempotentRequest, type Pool } from "@svc/platform/db";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, endPoolBeforeDrop } from "../support/infra.ts";

const logger = createLogger("idempotency-keys-migration-test", "silent");
const root = path.resolve(import.meta.dirname, "../..");

// The table as each service's own migrations made it before the move (meeting 0004; webhook 0002
// and 0006), for a schema that applied them.
const BEFORE = {
  meeting: `CREATE TABLE idempotency_keys (
      org_id text NOT NULL, key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
      fingerprint text NOT NULL CHECK (char_length(fingerprint) = 64), response bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (org_id, key));
    CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (org_id, created_at);`,
  webhook: `CREATE TABLE idempotency_keys (
      org_id text NOT NULL, key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
      fingerprint text NOT NULL CHECK (char_length(fingerprint) = 64), response bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (org_id, key));
    CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (org_id, created_at);
    ALTER TABLE idempotency_keys ADD COLUMN subject_id text;
    CREATE INDEX idempotency_keys_subject_idx ON idempotency_keys (org_id, subject_id) WHERE subject_id IS NOT NULL;`,
} as const;

const text = { encode: (value: string) => new TextEncoder().encode(value), decode: (stored: Uint8Array) => new TextDecoder().decode(stored) };
const request = (key: string): IdempotentRequest => ({ orgId: "org-1", principal: "user-1\0", key, fingerprint: "f".repeat(64) });

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A database whose `service` schema is as it was before the move, with `keys` stored in it. */
async function schemaBeforeTheMove(
  service: keyof typeof BEFORE,
  keys: { key: string; reply: string; subject?: string }[],
): Promise<{ url: string; pool: Pool }> {
  const database = await createTestDatabase();
  const pool = createPool({ databaseUrl: database.url, schema: service, logger, max: 2 });
  cleanups.push(async () => {
    await endPoolBeforeDrop(pool);
    await database.drop();
  });
  // The service's own migrations (its idempotency files now create nothing), then the table they used to make.
  await migrateServiceSchema({
    databaseUrl: database.url,
    schema: service,
    dir: path.join(root, "services", service, "migrations"),
    logger,
    idempotencyKeys: false,
  });
  await pool.query(BEFORE[service]);
  for (const { key, reply, subject } of keys) {
    await runIdempotently(pool, request(key), text, async () => reply, subject === undefined ? undefined : () => subject);
  }
  return { url: database.url, pool };
}

async function replay(pool: Pool, key: string) {
  return runIdempotently(pool, request(key), text, async () => "a second run: the key was lost");
}

describe("the platform's idempotency_keys migration on a schema made before it", () => {
  it("meeting: keeps every key, and adds the subject_id the meeting table lacked", async () => {
    const { url, pool } = await schemaBeforeTheMove("meeting", [
      { key: "k1", reply: "meeting one" },
      { key: "k2", reply: "meeting two" },
    ]);
    await migrateServiceSchema({ databaseUrl: url, schema: "meeting", dir: path.join(root, "services/meeting/migrations"), logger, idempotencyKeys: true });

    expect(await replay(pool, "k1")).toEqual({ value: "meeting one", replayed: true });
    expect(await replay(pool, "k2")).toEqual({ value: "meeting two", replayed: true });
    // The reconciled table takes what only webhook's could before.
    await runIdempotently(
      pool,
      request("k3"),
      text,
      async () => "about a subject",
      () => "subject-1",
    );
    await inTransaction(pool, (client) => deleteIdempotentReplies(client, "org-1", "subject-1"));
    expect(await replay(pool, "k3")).toEqual({ value: "a second run: the key was lost", replayed: false });
  });

  it("webhook: keeps every key and its subject, so deleting the subject still deletes its replies", async () => {
    const { url, pool } = await schemaBeforeTheMove("webhook", [
      { key: "k1", reply: "webhook one", subject: "subscription-1" },
      { key: "k2", reply: "webhook two" },
    ]);
    await migrateServiceSchema({ databaseUrl: url, schema: "webhook", dir: path.join(root, "services/webhook/migrations"), logger, idempotencyKeys: true });

    expect(await replay(pool, "k2")).toEqual({ value: "webhook two", replayed: true });
    const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM idempotency_keys WHERE subject_id = 'subscription-1'");
    expect(rows[0]!.n).toBe(1);
    await inTransaction(pool, (client) => deleteIdempotentReplies(client, "org-1", "subscription-1"));
    expect(await replay(pool, "k1")).toEqual({ value: "a second run: the key was lost", replayed: false });
  });

  it("a new schema: the one definition, with subject_id, in meeting and webhook alike", async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const columns: Record<string, string[]> = {};
    for (const service of ["meeting", "webhook"] as const) {
      await migrateServiceSchema({
        databaseUrl: database.url,
        schema: service,
        dir: path.join(root, "services", service, "migrations"),
        logger,
        idempotencyKeys: true,
      });
      const pool = createPool({ databaseUrl: database.url, schema: service, logger, max: 1 });
      const { rows } = await pool.query<{ column_name: string }>(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'idempotency_keys' ORDER BY column_name",
        [service],
      );
      await endPoolBeforeDrop(pool);
      columns[service] = rows.map((row) => row.column_name);
    }
    expect(columns.meeting).toEqual(["created_at", "fingerprint", "key", "org_id", "response", "subject_id"]);
    expect(columns.webhook).toEqual(columns.meeting);
  });
});
