import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafkaEventBus, createLogger, createPool, migrate, type EventBus, type OutgoingEvent, type Pool } from "@svc/platform";
import { insertMeeting } from "../../services/meeting/src/db/meetings.ts";
import { createMeetingLifecycle } from "../../services/meeting/src/room/meeting-lifecycle.ts";
import { createOutbox } from "../../services/meeting/src/db/outbox.ts";
import { newMeetingId } from "../../services/meeting/src/meeting-id.ts";
import { startOutboxRelay } from "../../services/meeting/src/outbox-relay.ts";
import { createTestDatabase, infra, uniqueName } from "../support/infra.ts";
import { consumeMeetingEvents } from "../support/meeting-events.ts";
import { waitFor } from "../support/wait.ts";

const logger = createLogger("outbox-relay-test", "silent");
const EVENTS = 300;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;
const buses: EventBus[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  await migrate({ databaseUrl: database.url, schema: "meeting", dir: path.resolve(import.meta.dirname, "../../services/meeting/migrations"), logger });
  pool = createPool({ databaseUrl: database.url, schema: "meeting", logger });
});
afterAll(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
  await pool?.end();
  await database?.drop();
});

describe("two outbox relays (two meeting-service replicas) against one outbox", () => {
  it(`publish each of ${EVENTS} events exactly once between them, and both take part`, { timeout: 120_000 }, async () => {
    // End EVENTS meetings with no relay running, so the outbox holds them all when the relays start.
    const lifecycle = createMeetingLifecycle({ pool, graceSeconds: 60, outboxWritten: () => undefined, logger });
    for (let index = 0; index < EVENTS; index++) {
      const meeting = await insertMeeting(pool, {
        id: newMeetingId(),
        orgId: "org-1",
        createdByUserId: "user-1",
        createdByClientId: null,
        title: `Meeting ${index}`,
        start: null,
        end: null,
        attendees: [],
      });
      await lifecycle.end("org-1", meeting.id, "api");
    }

    const topicPrefix = `${uniqueName("relay")}.`;
    const consumer = await consumeMeetingEvents(topicPrefix);
    const publishedBy = new Map<string, string[]>();
    const relays = ["replica-a", "replica-b"].map((name) => {
      // Each replica has its own producer, as two processes would.
      const bus = createKafkaEventBus({ brokers: infra.kafkaBrokers().split(","), topicPrefix, clientId: name, logger });
      buses.push(bus);
      const kafka = bus.publisher();
      return startOutboxRelay({
        outbox: createOutbox(pool),
        publisher: {
          async publish(events: OutgoingEvent[]) {
            // Widen the window in which the other relay could grab the same rows if locking were wrong.
            await new Promise((resolve) => setTimeout(resolve, 20));
            await kafka.publish(events);
            for (const event of events) publishedBy.set(event.id, [...(publishedBy.get(event.id) ?? []), name]);
          },
          close: () => kafka.close(),
        },
        logger,
        pollIntervalMs: 100,
        maxBackoffMs: 1_000,
        batchSize: 10,
      });
    });

    try {
      await waitFor(async () => {
        const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL");
        return rows[0]!.n === 0;
      }, 60_000, "the relays did not drain the outbox");
      await waitFor(() => new Set(consumer.received.map((received) => received.event.eventId)).size === EVENTS, 30_000, "not every event arrived");
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    } finally {
      await Promise.all(relays.map((relay) => relay.stop()));
      await consumer.stop();
    }

    expect(consumer.received).toHaveLength(EVENTS);
    expect([...publishedBy.values()].every((names) => names.length === 1)).toBe(true);
    const byA = [...publishedBy.values()].filter(([name]) => name === "replica-a").length;
    expect(byA).toBeGreaterThan(0);
    expect(byA).toBeLessThan(EVENTS);
  });
});
