import pg from "pg";
import type { Logger } from "../logger.ts";

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/**
 * A connection pool whose sessions see only `schema` (search_path), so a service's SQL names its
 * own tables without qualification and cannot reach another context's by accident.
 */
export function createPool(options: { databaseUrl: string; schema: string; logger: Logger; max?: number }): pg.Pool {
  const { databaseUrl, schema, logger, max = 10 } = options;
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    options: `-c search_path=${schema}`,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection dropped by the server (restart, failover) is replaced on next use;
  // without a listener the error would crash the process.
  pool.on("error", (error) => logger.warn({ error: error.message }, "idle database connection lost"));
  return pool;
}

/**
 * Runs `work` in one transaction, committing on success and rolling back on any error. If the
 * session dies while `work` awaits something else (no query in flight), the error is caught here
 * instead of crashing the process, and the broken connection is discarded, not pooled.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  options: { onSessionLost?: (error: Error) => void } = {},
): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onLost = (error: Error) => {
    lost = error;
    options.onSessionLost?.(error);
  };
  client.on("error", onLost);
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    if (!lost) await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.off("error", onLost);
    client.release(lost);
  }
}
