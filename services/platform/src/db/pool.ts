import { createHash } from "node:crypto";
import pg from "pg";
import type { Logger } from "../logger.ts";

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

/**
 * Beyond this many distinct statement texts a process stops preparing new ones: our SQL is
 * written as constants, so more would mean text built from data, which must not grow every
 * connection's set of prepared statements without bound.
 */
const MAX_PREPARED_STATEMENTS = 1_000;

/**
 * A client that prepares each parameterised statement once per connection and then only binds
 * and executes it: Postgres parses and plans our CTE-heavy statements on every call otherwise,
 * which was half of its CPU in the webhook pipeline (issue #18). The name is a hash of the text,
 * so one text always has one name. Statements without parameters (BEGIN, COMMIT) stay simple queries.
 */
function preparingClient(logger: Logger): typeof pg.Client {
  const names = new Map<string, string>();
  let warned = false;
  const nameOf = (text: string): string | undefined => {
    const known = names.get(text);
    if (known || names.size >= MAX_PREPARED_STATEMENTS) {
      if (!known && !warned) {
        warned = true;
        logger.warn({ limit: MAX_PREPARED_STATEMENTS }, "more distinct SQL statements than expected; new ones are not prepared");
      }
      return known;
    }
    const name = `svc_${createHash("sha256").update(text).digest("base64url").slice(0, 32)}`;
    names.set(text, name);
    return name;
  };
  class PreparingClient extends pg.Client {}
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  PreparingClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [text, values, ...rest] = args;
    const name = typeof text === "string" && Array.isArray(values) && values.length > 0 ? nameOf(text) : undefined;
    return query.apply(this, name ? [{ name, text, values }, ...rest] : args);
  } as typeof pg.Client.prototype.query;
  return PreparingClient;
}

/**
 * A connection pool whose sessions see only `schema` (search_path), so a service's SQL names its
 * own tables without qualification and cannot reach another context's by accident; statements
 * with parameters are prepared once per connection unless `preparedStatements` is false.
 */
export function createPool(options: { databaseUrl: string; schema: string; logger: Logger; max?: number; preparedStatements?: boolean }): pg.Pool {
  const { databaseUrl, schema, logger, max = 10, preparedStatements = true } = options;
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    ...(preparedStatements ? { Client: preparingClient(logger) } : {}),
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

/** The database settings every service reads (services/platform/src/config.ts). */
export interface DatabaseSettings {
  DATABASE_URL: string;
  DATABASE_POOL_SIZE?: number | undefined;
  DATABASE_PREPARED_STATEMENTS: boolean;
}

/** A service's pool on its own schema, as its configuration asks; `defaultSize` when DATABASE_POOL_SIZE is unset. */
export const createServicePool = (config: DatabaseSettings, options: { schema: string; logger: Logger; defaultSize: number }): pg.Pool =>
  createPool({
    databaseUrl: config.DATABASE_URL,
    schema: options.schema,
    logger: options.logger,
    max: config.DATABASE_POOL_SIZE ?? options.defaultSize,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
  });
