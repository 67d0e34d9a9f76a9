// Retention under load: seeds a million-row delivery history (events, deliveries and attempts,
// all finished and older than the window) into a fresh database of the infra Postgres, then runs
// the webhook service's retention purge while its dispatcher keeps delivering to a local receiver.
// Reports the longest a purge statement held its locks, the longest any session waited for a
// lock, and deliveries per second before and during the purge.
//
//   . scripts/node24.sh && eval "$(bash scripts/infra env)" && scripts/node test/bench/retention.ts
//
// Knobs: BENCH_RETENTION_ROWS (1000000), BENCH_RETENTION_BASELINE_SECONDS (10).
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { randomBytes, randomUUID } from "node:crypto";
import { createLogger, parseConfig } from "@svc/platform";
import { createPool, inTransaction, migrateServiceSchema, RETENTION_BATCH } from "@svc/platform/db";
import { configSchema } from "../../services/webhook/src/config.ts";
import { storeEventDeliveries } from "../../services/webhook/src/db/deliveries.ts";
import { purgeWebhookHistory } from "../../services/webhook/src/db/retention.ts";
import { insertSubscription } from "../../services/webhook/src/db/subscriptions.ts";
import { createDispatcher } from "../../services/webhook/src/delivery/dispatcher.ts";
import { createHttpSender } from "../../services/webhook/src/delivery/http-sender.ts";
import { createSecretBox } from "../../services/webhook/src/signing/secret-box.ts";
import { generateSigningSecret } from "../../services/webhook/src/signing/signing-secret.ts";
import { createTestDatabase } from "../support/infra.ts";
import { dispatcherSettings } from "../../services/webhook/src/delivery/dispatcher-settings.ts";

const ROWS = Number(process.env.BENCH_RETENTION_ROWS ?? 1_000_000);
const BASELINE_SECONDS = Number(process.env.BENCH_RETENTION_BASELINE_SECONDS ?? 10);
/** Deliveries kept queued so the dispatcher is never idle: throughput is its ceiling, not the feed's. */
const BACKLOG = 400;

const log = (message: string) => process.stderr.write(`retention bench: ${message}\n`);
const logger = createLogger("retention-bench", "silent");
const config = parseConfig(configSchema, {
  DATABASE_URL: "postgres://unused@127.0.0.1/unused",
  WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  WEBHOOK_ALLOW_INSECURE: "true",
});

const database = await createTestDatabase();
const dir = path.resolve(import.meta.dirname, "../../services/webhook/migrations");
await migrateServiceSchema({ databaseUrl: database.url, schema: "webhook", dir, logger, idempotencyKeys: true });
const pool = createPool({ databaseUrl: database.url, schema: "webhook", logger, max: 20 });
const observer = createPool({ databaseUrl: database.url, schema: "webhook", logger, max: 2 });
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(204).end());
});

try {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const secretBox = createSecretBox(randomBytes(32));
  const subscriptionId = randomUUID();
  await inTransaction(pool, (client) =>
    insertSubscription(
      client,
      {
        id: subscriptionId,
        orgId: "org-bench",
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        events: ["meeting.ended"],
        secretSealed: secretBox.seal(generateSigningSecret(), subscriptionId),
      },
      100,
    ),
  );

  log(`seeding ${ROWS.toLocaleString("en")} finished deliveries, their events and one attempt each, 40-60 days old`);
  const seedStarted = performance.now();
  await pool.query(
    `INSERT INTO events (id, org_id, type, body, created_at)
     SELECT 'seed-' || g, 'org-bench', 'meeting.ended', '{"type":"meeting.ended","data":{"attendees":["ada@example.com"]}}',
            now() - interval '40 days' - g * interval '1 second'
     FROM generate_series(1, $1) g`,
    [ROWS],
  );
  await pool.query(
    `INSERT INTO deliveries (id, subscription_id, event_id, status, next_attempt_at, attempt_count, created_at, updated_at)
     SELECT gen_random_uuid(), $2, 'seed-' || g, (ARRAY['succeeded', 'failed', 'cancelled'])[1 + g % 3], NULL, 1,
            now() - interval '40 days' - g * interval '1 second', now() - interval '40 days' - g * interval '1 second'
     FROM generate_series(1, $1) g`,
    [ROWS, subscriptionId],
  );
  await pool.query(`INSERT INTO attempts (delivery_id, attempted_at, status_code, latency_ms) SELECT id, created_at, 204, 12 FROM deliveries`);
  await pool.query("VACUUM ANALYZE events, deliveries, attempts");
  log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`);

  const dispatcher = createDispatcher({
    pool,
    sender: createHttpSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateTargets: true }),
    secretBox,
    logger,
    ...dispatcherSettings(config),
  });

  // The feed: keeps about BACKLOG deliveries pending, as the consumer would during a burst.
  let feeding = true;
  const feed = (async () => {
    while (feeding) {
      const { rows } = await pool.query<{ pending: number }>("SELECT count(*)::int AS pending FROM deliveries WHERE status = 'pending'");
      const missing = BACKLOG - rows[0]!.pending;
      // Eight at a time, as the consumer's partitions would store them.
      for (let i = 0; i < missing; i += 8) {
        await Promise.all(
          Array.from({ length: Math.min(8, missing - i) }, () => {
            const id = randomUUID();
            return storeEventDeliveries(pool, [
              {
                id,
                orgId: "org-bench",
                type: "meeting.ended",
                body: JSON.stringify({ type: "meeting.ended", data: { meetingId: id } }),
              },
            ]);
          }),
        );
      }
      dispatcher.wake();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const succeededSinceSeed = async () =>
    (await observer.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded' AND event_id NOT LIKE 'seed-%'")).rows[0]!.n;

  // Lock waits anywhere in the database, sampled every 25 ms: the longest wait seen.
  let longestLockWaitMs = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await observer.query<{ waited: number | null }>(
        `SELECT max(extract(epoch FROM now() - state_change) * 1000)::float AS waited
         FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      longestLockWaitMs = Math.max(longestLockWaitMs, rows[0]?.waited ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();

  dispatcher.start();
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // warm-up
  let before = await succeededSinceSeed();
  let started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, BASELINE_SECONDS * 1000));
  const baselinePerSecond = ((await succeededSinceSeed()) - before) / ((performance.now() - started) / 1000);
  const baselineLockWaitMs = longestLockWaitMs;
  log(`baseline: ${baselinePerSecond.toFixed(0)} deliveries/s for ${BASELINE_SECONDS} s; longest lock wait ${baselineLockWaitMs.toFixed(0)} ms`);

  longestLockWaitMs = 0;
  const batches: { name: string; deleted: number; durationMs: number }[] = [];
  before = await succeededSinceSeed();
  started = performance.now();
  log(`purging with batches of ${RETENTION_BATCH.batchSize} and ${RETENTION_BATCH.pauseMs} ms pauses (the service's settings)`);
  const removed = await purgeWebhookHistory(pool, config.WEBHOOK_RETENTION_DAYS, { ...RETENTION_BATCH, onBatch: (batch) => batches.push(batch) });
  const purgeSeconds = (performance.now() - started) / 1000;
  const duringPerSecond = ((await succeededSinceSeed()) - before) / purgeSeconds;

  feeding = false;
  sampling = false;
  await Promise.all([feed, sampler]);
  await dispatcher.stop();

  const durations = batches.map((batch) => batch.durationMs).sort((a, b) => a - b);
  const percentile = (p: number) => durations[Math.min(durations.length - 1, Math.floor((p / 100) * durations.length))]!;
  const left = (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries WHERE event_id LIKE 'seed-%'")).rows[0]!.n;
  const result = {
    seededRows: ROWS,
    removed,
    seededDeliveriesLeft: left,
    purgeSeconds: Number(purgeSeconds.toFixed(1)),
    batches: batches.length,
    longestBatchMs: Number(durations.at(-1)!.toFixed(1)),
    batchMsP50: Number(percentile(50).toFixed(1)),
    batchMsP99: Number(percentile(99).toFixed(1)),
    longestLockWaitMsDuringPurge: Number(longestLockWaitMs.toFixed(1)),
    longestLockWaitMsBaseline: Number(baselineLockWaitMs.toFixed(1)),
    deliveriesPerSecondBaseline: Number(baselinePerSecond.toFixed(0)),
    deliveriesPerSecondDuringPurge: Number(duringPerSecond.toFixed(0)),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (left > 0) process.exitCode = 1;
} finally {
  receiver.close();
  await observer.end();
  await pool.end();
  // Autovacuum (a superuser's worker) visits the emptied tables afterwards; FORCE may not end it.
  for (let attempt = 1; ; attempt++) {
    try {
      await database.drop();
      break;
    } catch (error) {
      if (attempt === 30) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
  }
}
