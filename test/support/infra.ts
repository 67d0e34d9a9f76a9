import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import { Kafka, logLevel } from "kafkajs";
import pg from "pg";
import { holdStill } from "./hold-still.ts";

export const infra = {
  databaseUrl: () => required("DATABASE_URL"),
  redisUrl: () => required("REDIS_URL"),
  kafkaBrokers: () => required("KAFKA_BROKERS"),
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run eval "$(scripts/infra up)"`);
  return value;
}

/** A unique, lowercase name for this run's database, topics and keys. */
export const uniqueName = (prefix: string) => `${prefix}_${randomBytes(5).toString("hex")}`;

/** Creates an empty database on the infra Postgres; the returned `drop` removes it. */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = uniqueName("svc_test");
  const admin = new pg.Client({ connectionString: infra.databaseUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(infra.databaseUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const client = new pg.Client({ connectionString: infra.databaseUrl() });
      await client.connect();
      try {
        // FORCE ends the connections left open, but Postgres 15 refuses it (42501) while an
        // autovacuum worker, which runs as no role of ours, is in the database: try again until it
        // is done. On the bench's tables of 10⁶ rows that took longer than 5 s.
        const deadline = Date.now() + 120_000;
        for (;;) {
          try {
            await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
            break;
          } catch (error) {
            if ((error as { code?: string }).code !== "42501" || Date.now() > deadline) throw error;
            await holdStill(250, "before dropping the database again: its last connections are still closing");
          }
        }
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Deletes a run's Kafka topics and consumer groups (every one whose name starts with `prefix`), as
 * dropping its database does for Postgres. Without it each stack left four partitions on the
 * broker's disk for good: after some thousand runs the broker took longer than scripts/infra's 60 s
 * to load them at start-up (a CI run on a machine with a warm cache). Best effort: a test that
 * stopped the broker must still stop its stack.
 */
export async function deleteKafkaRun(prefix: string): Promise<void> {
  const kafka = new Kafka({
    clientId: "test-cleanup",
    brokers: infra.kafkaBrokers().split(","),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2_000,
    retry: { retries: 1 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 10_000 });
    const groups = (await admin.listGroups()).groups.map((group) => group.groupId).filter((groupId) => groupId.startsWith(prefix));
    if (groups.length > 0) await admin.deleteGroups(groups);
  } catch {
    // The broker is down or slow: its leftovers go with the next `scripts/infra reset kafka`.
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Ends a pool whose database is about to be dropped. pg-pool's `end()` resolves before its
 * connections have closed, so `DROP DATABASE ... WITH (FORCE)` can still reach one: the server
 * sends it "terminating connection due to administrator command" (57P01), which the pool re-emits
 * as an 'error' that nobody listens to any more, an uncaught exception in whichever test file runs
 * then (seen once files ran side by side). After the end, such an error is expected: ignored.
 */
export async function endPoolBeforeDrop(pool: { on(event: "error", listener: () => void): unknown; end(): Promise<void> }): Promise<void> {
  pool.on("error", () => undefined);
  await pool.end();
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

const infraScript = new URL("../../scripts/infra", import.meta.url).pathname;

function runInfra(...args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [infraScript, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`scripts/infra ${args.join(" ")} failed (${code}): ${stderr}`))));
  });
}

/**
 * Stops the SHARED Kafka broker (every test on this machine uses it): only for outage tests,
 * which must call `startKafka()` in a finally/afterAll.
 */
export const stopKafka = () => runInfra("stop", "kafka");
/** Starts the shared Kafka broker again and waits until it answers metadata requests. */
export const startKafka = () => runInfra("start", "kafka");

/**
 * `count` distinct ports nobody listens on right now: all are held open together while they are
 * chosen, so the kernel cannot hand out the same one twice.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
