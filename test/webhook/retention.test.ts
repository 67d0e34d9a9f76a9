import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { storeEventDeliveries } from "../../services/webhook/src/db/deliveries.ts";
import { purgeWebhookHistory } from "../../services/webhook/src/db/retention.ts";
import { createSecretBox } from "../../services/webhook/src/signing/secret-box.ts";
import { useServiceDatabase } from "../support/service-database.ts";
import { storeSubscription } from "../support/stored-subscriptions.ts";

// Retention of the webhook schema against the real Postgres: what is old and finished goes, in
// batches; what is pending, recent or still referred to stays.
const logger = createLogger("webhook-retention-test", "silent");
const secretBox = createSecretBox(randomBytes(32));
const database = useServiceDatabase("webhook", logger, { max: 4 });

const subscribe = async (orgId: string) => (await storeSubscription(database.pool, secretBox, orgId)).id;

/** Stores an event with its delivery, then ages both and sets the delivery's status, with `attempts` attempts. */
async function delivery(orgId: string, options: { status: string; ageDays: number; attempts: number }) {
  const eventId = randomUUID();
  await storeEventDeliveries(database.pool, [{ id: eventId, orgId, type: "meeting.ended", body: `{"attendees":["ada@example.com"]}` }]);
  const { rows } = await database.pool.query<{ id: string }>(
    `UPDATE deliveries SET status = $2, next_attempt_at = CASE WHEN $2 = 'pending' THEN now() END,
       created_at = now() - make_interval(days => $3), updated_at = now() - make_interval(days => $3)
     WHERE event_id = $1 RETURNING id`,
    [eventId, options.status, options.ageDays],
  );
  await database.pool.query("UPDATE events SET created_at = now() - make_interval(days => $2) WHERE id = $1", [eventId, options.ageDays]);
  for (let i = 0; i < options.attempts; i++) {
    await database.pool.query("INSERT INTO attempts (delivery_id, attempted_at, status_code, latency_ms) VALUES ($1, now(), 500, 5)", [rows[0]!.id]);
  }
  return { eventId, deliveryId: rows[0]!.id };
}

describe("webhook retention", () => {
  it("removes finished deliveries older than the window with their attempts and events, in batches, and keeps everything else", async () => {
    await subscribe("org-a");
    const old = await Promise.all(
      Array.from({ length: 25 }, (_, i) => delivery("org-a", { status: ["succeeded", "failed", "cancelled"][i % 3]!, ageDays: 31, attempts: 2 })),
    );
    const recent = await delivery("org-a", { status: "succeeded", ageDays: 29, attempts: 1 });
    const oldButPending = await delivery("org-a", { status: "pending", ageDays: 45, attempts: 3 });
    // An old event still referred to by a recent delivery (a redelivery request renews it) stays.
    const shared = await delivery("org-a", { status: "succeeded", ageDays: 40, attempts: 1 });
    await database.pool.query("UPDATE deliveries SET updated_at = now() WHERE id = $1", [shared.deliveryId]);

    const batches: number[] = [];
    const removed = await purgeWebhookHistory(database.pool, 30, {
      batchSize: 10,
      onBatch: ({ name, deleted }) => name === "deliveries" && batches.push(deleted),
    });

    expect(removed).toMatchObject({ deliveries: 25, events: 25 });
    expect(batches).toEqual([10, 10, 5]);
    const remaining = (await database.pool.query<{ id: string }>("SELECT id FROM deliveries ORDER BY id")).rows.map((row) => row.id).sort();
    expect(remaining).toEqual([recent.deliveryId, oldButPending.deliveryId, shared.deliveryId].sort());
    const attemptsLeft = (await database.pool.query<{ count: number }>("SELECT count(*)::int AS count FROM attempts")).rows[0]!.count;
    expect(attemptsLeft).toBe(1 + 3 + 1);
    const events = (await database.pool.query<{ id: string }>("SELECT id FROM events")).rows.map((row) => row.id).sort();
    expect(events).toEqual([recent.eventId, oldButPending.eventId, shared.eventId].sort());
    expect(old.every(({ eventId }) => !events.includes(eventId))).toBe(true);
  });

  it("removes idempotency keys past 24 hours in every organization, even ones that no longer use keys", async () => {
    await database.pool.query(
      `INSERT INTO idempotency_keys (org_id, key, fingerprint, response, created_at) VALUES
         ('org-quiet', 'old', repeat('a', 64), '\\x00', now() - interval '25 hours'),
         ('org-quiet', 'fresh', repeat('a', 64), '\\x00', now() - interval '1 hour')`,
    );
    const removed = await purgeWebhookHistory(database.pool, 30, { batchSize: 10 });
    expect(removed.idempotency_keys).toBe(1);
    expect((await database.pool.query("SELECT key FROM idempotency_keys")).rows).toEqual([{ key: "fresh" }]);
  });
});
