// How cost grows with stored data: each measurement at a small and a large amount of data in the
// same run, the largest compared with the smallest ("flat within 2×" on p99). Rows are seeded with
// INSERT … SELECT generate_series statements, as retention.ts does: 10⁶ rows in under a minute.
//
// - GET /api/v1/webhook?pageSize=20 and 100 at 1, 100 and 1,000 subscriptions of one organization;
// - POST /api/v1/meeting with 10⁴ and 10⁶ meetings (two participants each) already stored;
// - the dispatcher's due-delivery claim (claimDueDeliveries itself) with 10⁴ and 10⁶ deliveries
//   stored, nearly all finished, a few due, and its EXPLAIN ANALYZE plan: no Seq Scan on the big
//   tables;
// - a meeting room's signaling on our side (roomPresence) with 10, 100 and 200 people present.
import path from "node:path";
import type pg from "pg";
import { createLogger } from "@svc/platform";
import { createPool, migrateServiceSchema, type Pool } from "@svc/platform/db";
import { claimDueDeliveries } from "../../services/webhook/src/db/deliveries.ts";
import { mediaParticipant, sendMediaWebhook } from "../support/media-webhooks.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import type { Stack } from "../support/stack.ts";
import type { Tenant } from "../support/tenants.ts";
import { loop, type LoadOptions, type LoadResult } from "./load.ts";
import type { Row } from "./row.ts";
import { flatRows, scansIn, seqScansOn, sizeName, type PlanNode } from "./growth-goals.ts";

export interface GrowthOptions {
  stack: Stack;
  tenant: Tenant;
  /** A warm-up run (discarded), then the measured one: as every other HTTP scenario of the bench. */
  measure: (name: string, options: Omit<LoadOptions, "connections" | "durationSeconds">) => Promise<LoadResult>;
  subscriptionCounts: number[];
  /** Stored meetings, and stored deliveries, at each step (smallest first). */
  rowCounts: number[];
  warmupSeconds: number;
  durationSeconds: number;
  log: (message: string) => void;
}

export async function growth(options: GrowthOptions): Promise<Row[]> {
  return [...(await webhookList(options)), ...(await meetingCreate(options)), ...(await dueDeliveryClaim(options))];
}

/**
 * The page sizes the growth rows ask for: the API's default page (what a client paging without a
 * size gets) and the largest. From 1 subscription to 100 the answer itself grows (1 item, then a
 * full page), so each series's largest-to-smallest ratio holds the cost of a longer answer as well
 * as that of more stored rows; from 100 to 1,000 only the stored rows grow.
 */
const WEBHOOK_PAGE_SIZES = [20, 100];

/** GET /api/v1/webhook?pageSize=N as an organization's subscriptions grow; each page must be full (or all there is). */
async function webhookList({ stack, tenant, measure, subscriptionCounts }: GrowthOptions): Promise<Row[]> {
  const series = new Map<number, { row: Row; size: number }[]>(WEBHOOK_PAGE_SIZES.map((pageSize) => [pageSize, []]));
  let stored = 0;
  for (const size of subscriptionCounts) {
    await stack.query(
      `INSERT INTO webhook.subscriptions (id, org_id, url, events, secret_sealed, created_at)
       SELECT gen_random_uuid(), $1, 'https://example.com/hook/' || g, '{meeting.ended}', '\\x00'::bytea, now() + g * interval '1 millisecond'
       FROM generate_series($2::int + 1, $3::int) g`,
      [tenant.orgId, stored, size],
    );
    stored = size;
    for (const pageSize of WEBHOOK_PAGE_SIZES) {
      const scenario = `GET /api/v1/webhook?pageSize=${pageSize}, ${sizeName(size)} subscription${size === 1 ? "" : "s"}`;
      const result = await measure(scenario, {
        url: `${stack.gatewayUrl}/api/v1/webhook?pageSize=${pageSize}`,
        headers: { authorization: `Bearer ${tenant.apiKey}` },
        onResponse: (status, body) => status === 200 && body.split('"webhookId"').length - 1 === Math.min(size, pageSize),
      });
      series.get(pageSize)!.push({
        size,
        row: { scenario: `growth: ${scenario}`, ...result, note: `the first page of ${Math.min(size, pageSize)} (keyset pagination on creation time and id)` },
      });
    }
  }
  return [...series.values()].flatMap(flatRows);
}

/** POST /api/v1/meeting (two attendees) with more and more meetings stored, of many organizations. */
async function meetingCreate({ stack, tenant, measure, rowCounts, log }: GrowthOptions): Promise<Row[]> {
  const measurements: { row: Row; size: number }[] = [];
  let stored = 0;
  for (const size of rowCounts) {
    const started = performance.now();
    // Ids in ascending order (zero-padded sequence numbers), so every index is appended to at its
    // right edge rather than split at random (random ids made 10⁶ meetings take minutes).
    await stack.query(
      `INSERT INTO meeting.meetings (id, org_id, created_by_user_id, title, status, created_at, ended_at)
       SELECT 'growth' || lpad(g::text, 16, '0'), 'org-growth-' || g % 1000, 'user-growth', 'Seeded meeting', 'ended',
              now() - interval '30 days' + g * interval '1 millisecond', now() - interval '30 days' + g * interval '1 millisecond' + interval '30 minutes'
       FROM generate_series($1::int + 1, $2::int) g`,
      [stored, size],
    );
    await stack.query(
      `INSERT INTO meeting.participants (meeting_id, ordinal, email)
       SELECT 'growth' || lpad(g::text, 16, '0'), ordinal, 'attendee' || ordinal || '@example.com'
       FROM generate_series($1::int + 1, $2::int) g, generate_series(0, 1) ordinal`,
      [stored, size],
    );
    await stack.query("ANALYZE meeting.meetings, meeting.participants");
    log(`meetings: ${sizeName(size)} stored (${((performance.now() - started) / 1000).toFixed(1)} s to seed)`);
    stored = size;
    const result = await measure(`POST /meeting (${size} stored)`, {
      url: `${stack.gatewayUrl}/api/v1/meeting`,
      method: "POST",
      headers: { authorization: `Bearer ${tenant.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Growth meeting", attendees: ["a@example.com", "b@example.com"] }),
    });
    measurements.push({ size, row: { scenario: `growth: POST /api/v1/meeting, ${sizeName(size)} meetings stored`, ...result } });
  }
  return flatRows(measurements);
}

/** Pending deliveries kept while finished ones grow: DUE due now, as many scheduled for later. */
const DUE = 20;
const SUBSCRIPTIONS = 100;
/** The tables that grow with deliveries: a Seq Scan on either would make the claim grow too. */
const BIG_TABLES = ["deliveries", "events", "attempts"];

/**
 * The dispatcher's claim as it runs in the service (claimDueDeliveries, on a schema of its own in
 * the stack's database so the running dispatcher does not take the due rows), timed one at a time
 * inside a transaction rolled back, so the same DUE rows are due every time.
 */
async function dueDeliveryClaim({ stack, rowCounts, warmupSeconds, durationSeconds, log }: GrowthOptions): Promise<Row[]> {
  const logger = createLogger("growth-bench", "silent");
  const schema = "webhook_growth";
  await migrateServiceSchema({
    databaseUrl: stack.databaseUrl,
    schema,
    dir: path.resolve(import.meta.dirname, "../../services/webhook/migrations"),
    logger,
    idempotencyKeys: true,
  });
  const pool = createPool({ databaseUrl: stack.databaseUrl, schema, logger, max: 1 });
  const measurements: { row: Row; size: number }[] = [];
  try {
    await pool.query(
      `WITH subscription AS (
         INSERT INTO subscriptions (id, org_id, url, events, secret_sealed)
         SELECT gen_random_uuid(), 'org-' || g % 10, 'https://example.com/hook/' || g, '{meeting.ended}', '\\x00'::bytea FROM generate_series(1, $1::int) g
         RETURNING id
       ), pending AS (
         SELECT id AS subscription_id, row_number() OVER () AS n FROM subscription
       ), event AS (
         INSERT INTO events (id, org_id, type, body) SELECT 'pending-' || n, 'org-0', 'meeting.ended', '{}' FROM pending WHERE n <= 2 * $2::int
       )
       INSERT INTO deliveries (id, subscription_id, event_id, status, next_attempt_at)
       SELECT gen_random_uuid(), subscription_id, 'pending-' || n, 'pending', CASE WHEN n <= $2::int THEN now() - interval '1 second' ELSE now() + interval '1 hour' END
       FROM pending WHERE n <= 2 * $2::int`,
      [SUBSCRIPTIONS, DUE],
    );
    let stored = 2 * DUE;
    for (const size of rowCounts) {
      const started = performance.now();
      await seedFinishedDeliveries(pool, stored, size);
      await pool.query("ANALYZE subscriptions, events, deliveries, attempts");
      log(`deliveries: ${sizeName(size)} stored (${((performance.now() - started) / 1000).toFixed(1)} s to seed)`);
      stored = size;

      let sql = { text: "", values: [] as unknown[] };
      const claimOnce = async () => {
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          // claimDueDeliveries only calls query(), which a client in a transaction has too.
          const recording = { query: (text: string, values: unknown[]) => ((sql = { text, values }), client.query(text, values)) };
          const claimed = await claimDueDeliveries(recording as unknown as Pool, {
            limit: 128,
            leaseMs: 30_000,
            leaseToken: crypto.randomUUID(),
            perEndpoint: 32,
            perOrganization: 64,
            inFlight: new Map(),
          });
          if (claimed.length !== DUE) throw new Error(`claimed ${claimed.length} of ${DUE} due deliveries`);
        } finally {
          await client.query("ROLLBACK");
          client.release();
        }
      };
      await loop(1, warmupSeconds, claimOnce);
      const result = await loop(1, durationSeconds, claimOnce);
      const scans = await planScans(pool, sql);
      measurements.push({
        size,
        row: {
          scenario: `growth: due-delivery claim, ${sizeName(size)} deliveries stored (${DUE} due)`,
          ...result,
          goal: "no Seq Scan on a big table",
          met: seqScansOn(scans, BIG_TABLES).length === 0,
          note: `plan: ${scans.map((scan) => `${scan.type} ${scan.index ?? ""} on ${scan.relation}`.replace("  ", " ")).join(", ")}`,
        },
      });
    }
  } finally {
    await pool.end();
  }
  return flatRows(measurements);
}

/**
 * Grows the finished history from `from` to `to` deliveries: succeeded, failed or cancelled, days
 * old, one event each, spread over the subscriptions. Ids ascend with the sequence number so the
 * indexes are appended to, not split at random.
 */
async function seedFinishedDeliveries(pool: Pool, from: number, to: number) {
  await pool.query(
    `INSERT INTO events (id, org_id, type, body, created_at)
     SELECT 'finished-' || lpad(g::text, 10, '0'), 'org-' || g % 10, 'meeting.ended', '{"type":"meeting.ended"}',
            now() - interval '30 days' + g * interval '1 millisecond'
     FROM generate_series($1::int + 1, $2::int) g`,
    [from, to],
  );
  await pool.query(
    `INSERT INTO deliveries (id, subscription_id, event_id, status, next_attempt_at, attempt_count, created_at, updated_at)
     SELECT lpad(to_hex(g), 32, '0')::uuid, subscription_ids[1 + g % cardinality(subscription_ids)], 'finished-' || lpad(g::text, 10, '0'),
            (ARRAY['succeeded', 'failed', 'cancelled'])[1 + g % 3], NULL, 1,
            now() - interval '30 days' + g * interval '1 millisecond', now() - interval '30 days' + g * interval '1 millisecond'
     FROM generate_series($1::int + 1, $2::int) g, (SELECT array_agg(id ORDER BY id) AS subscription_ids FROM subscriptions) s`,
    [from, to],
  );
}

/** The scans in the claim's actual plan (EXPLAIN ANALYZE, rolled back). */
async function planScans(pool: Pool, sql: { text: string; values: unknown[] }) {
  const client: pg.PoolClient = await pool.connect();
  try {
    await client.query("BEGIN");
    const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql.text}`, sql.values);
    return scansIn(rows[0]!["QUERY PLAN"][0].Plan);
  } finally {
    await client.query("ROLLBACK");
    client.release();
  }
}

/**
 * A meeting room's signaling on our side as the room fills: with `present` people in the meeting,
 * a newcomer's join grant (`POST /api/v1/meeting/:id/join`: counts who is present against the cap),
 * the media server's signed `participant_joined` and then `participant_left` webhooks (each takes
 * the meeting's row lock, records the visit and writes its events to the outbox), timed together.
 * Presence is sent as LiveKit sends it (test/support/media-webhooks.ts); the grant opens the room on
 * the stack's real media server, so the stack must hold back its room reconciler, which would
 * remove the people the media server does not see in the room. The media server's own signaling
 * (WebRTC to each browser) is LiveKit's and not measured here.
 */
export async function roomPresence(options: {
  stack: Stack;
  tenant: Tenant;
  presentCounts: number[];
  concurrency: number;
  warmupSeconds: number;
  durationSeconds: number;
  log: (message: string) => void;
}): Promise<Row[]> {
  const { stack, tenant, presentCounts, concurrency, warmupSeconds, durationSeconds, log } = options;
  const created = await callApi(apiBase(stack), "POST", "/meeting", { key: tenant.apiKey, body: { title: "Growing room" } });
  if (created.status !== 200) throw new Error(`meeting creation failed: ${created.status}`);
  const meetingId = ((await created.json()) as { id: string }).id;
  const enter = async (name: string) => {
    const participant = mediaParticipant(name);
    const status = await sendMediaWebhook(stack, { event: "participant_joined", meetingId, participant });
    if (status !== 200) throw new Error(`participant_joined answered ${status}`);
    return participant;
  };
  const newcomer = async () => {
    const grant = await callApi(apiBase(stack), "POST", `/meeting/${meetingId}/join`, { body: { displayName: "Newcomer" } });
    await grant.arrayBuffer();
    if (grant.status !== 200) throw new Error(`join answered ${grant.status}`);
    const participant = await enter("Newcomer");
    const status = await sendMediaWebhook(stack, { event: "participant_left", meetingId, participant });
    if (status !== 200) throw new Error(`participant_left answered ${status}`);
  };
  const measurements: { row: Row; size: number }[] = [];
  let present = 0;
  for (const size of presentCounts) {
    for (; present < size; present++) await enter(`Person ${present + 1}`);
    log(`room: ${size} present; warm-up ${warmupSeconds}s, then ${durationSeconds}s of newcomers at ${concurrency} at once`);
    await loop(concurrency, warmupSeconds, newcomer);
    const result = await loop(concurrency, durationSeconds, newcomer);
    measurements.push({
      size,
      row: {
        scenario: `growth: a newcomer's join grant, entry and exit, ${size} people present`,
        ...result,
        note: `${concurrency} newcomers at once; rooms opened on a real media server, presence as its signed webhooks`,
      },
    });
  }
  return flatRows(measurements);
}
