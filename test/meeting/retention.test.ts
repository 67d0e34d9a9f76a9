import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { purgeMeetingHistory } from "../../services/meeting/src/db/retention.ts";
import { useServiceDatabase } from "../support/service-database.ts";

// Retention of the meeting schema's machinery tables against the real Postgres.
const logger = createLogger("meeting-retention-test", "silent");
const database = useServiceDatabase("meeting", logger, { max: 4 });

describe("meeting retention", () => {
  it("removes sent outbox rows after 7 days, applied media-webhook ids after a day and idempotency keys after 24 hours, in batches; unsent rows stay", async () => {
    const outbox = (sentDaysAgo: number | null) =>
      database.pool.query(
        "INSERT INTO outbox (event_id, topic, key, type, payload, sent_at) VALUES ($1, 'meeting.events', 'm', 't', '\\x00', now() - make_interval(days => $2::int))",
        [randomUUID(), sentDaysAgo],
      );
    for (let i = 0; i < 12; i++) await outbox(8);
    await outbox(6);
    await outbox(null); // unsent, however old
    await database.pool.query("UPDATE outbox SET created_at = now() - interval '30 days'");
    await database.pool.query("INSERT INTO media_webhook_events (id, received_at) VALUES ('old', now() - interval '25 hours'), ('new', now())");
    await database.pool.query(
      `INSERT INTO idempotency_keys (org_id, key, fingerprint, response, created_at) VALUES
         ('org', 'old', repeat('a', 64), '\\x00', now() - interval '25 hours'), ('org', 'fresh', repeat('a', 64), '\\x00', now())`,
    );

    const batches: Record<string, number[]> = {};
    const removed = await purgeMeetingHistory(database.pool, { batchSize: 5, onBatch: ({ name, deleted }) => (batches[name] ??= []).push(deleted) });

    expect(removed).toEqual({ outbox: 12, media_webhook_events: 1, idempotency_keys: 1 });
    expect(batches.outbox).toEqual([5, 5, 2]);
    const left = await database.pool.query<{ sent: boolean }>("SELECT sent_at IS NOT NULL AS sent FROM outbox ORDER BY sent");
    expect(left.rows).toEqual([{ sent: false }, { sent: true }]);
    expect((await database.pool.query("SELECT id FROM media_webhook_events")).rows).toEqual([{ id: "new" }]);
    expect((await database.pool.query("SELECT key FROM idempotency_keys")).rows).toEqual([{ key: "fresh" }]);
  });
});
