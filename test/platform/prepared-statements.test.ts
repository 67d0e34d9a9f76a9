import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createPool, inTransaction } from "@svc/platform/db";
import { createTestDatabase } from "../support/infra.ts";

// The platform's pool prepares each parameterised statement once per connection (Postgres then
// only binds and executes it), against real Postgres: what is prepared is read back from the
// session's own pg_prepared_statements.
const logger = createLogger("prepared-statements-test", "silent");
let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const preparedIn = async (client: { query: (text: string) => Promise<{ rows: { statement: string }[] }> }) =>
  (await client.query("SELECT statement FROM pg_prepared_statements")).rows.map((row) => row.statement);

describe("prepared statements", () => {
  it("prepares a statement with parameters once per connection and reuses it; BEGIN, COMMIT and statements without parameters stay simple", async () => {
    const pool = createPool({ databaseUrl: database.url, schema: "public", logger, max: 1 });
    try {
      const statement = "SELECT $1::int + 1 AS next";
      for (const value of [1, 2, 3]) expect((await pool.query<{ next: number }>(statement, [value])).rows[0]!.next).toBe(value + 1);
      await inTransaction(pool, async (client) => {
        expect((await client.query<{ next: number }>(statement, [41])).rows[0]!.next).toBe(42);
        await client.query("SELECT 1");
        expect(await preparedIn(client)).toEqual([statement]);
      });
    } finally {
      await pool.end();
    }
  });

  it("gives each distinct text its own statement, and answers each with its own rows", async () => {
    const pool = createPool({ databaseUrl: database.url, schema: "public", logger, max: 1 });
    try {
      const [a, b] = ["SELECT $1::text AS value", "SELECT upper($1::text) AS value"];
      expect((await pool.query(a, ["x"])).rows).toEqual([{ value: "x" }]);
      expect((await pool.query(b, ["x"])).rows).toEqual([{ value: "X" }]);
      expect((await pool.query(a, ["y"])).rows).toEqual([{ value: "y" }]);
      const client = await pool.connect();
      expect((await preparedIn(client)).sort()).toEqual([a, b].sort());
      client.release();
    } finally {
      await pool.end();
    }
  });

  it("prepares nothing with preparedStatements: false (DATABASE_PREPARED_STATEMENTS=false, for a pooler that cannot keep them)", async () => {
    const pool = createPool({ databaseUrl: database.url, schema: "public", logger, max: 1, preparedStatements: false });
    try {
      expect((await pool.query("SELECT $1::int AS value", [7])).rows).toEqual([{ value: 7 }]);
      const client = await pool.connect();
      expect(await preparedIn(client)).toEqual([]);
      client.release();
    } finally {
      await pool.end();
    }
  });
});
