import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { inTransaction, type Pool } from "@svc/platform/db";
import { createKafkaEventBus, type EventBus, type OutgoingEvent } from "@svc/platform/events";
import { insertMeeting } from "../../services/meeting/src/db/meetings.ts";
import { DEFAULT_SETTINGS } from "../../services/meeting/src/meeting-request.ts";
import { createMeetingLifecycle } from "../../services/meeting/src/room/meeting-lifecycle.ts";
import { randomUUID } from "node:crypto";
import { createOutbox, insertOutboxEvent, type OutboxEvent } from "../../services/meeting/src/db/outbox.ts";
import { newMeetingId } from "../../services/meeting/src/meeting-id.ts";
import { startOutboxRelay } from "../../services/meeting/src/outbox-relay.ts";
import { createServiceDatabase, type ServiceDatabase } from "../support/service-database.ts";
import { infra, uniqueName } from "../support/infra.ts";
import { consumeMeetingEvents } from "../support/meeting-events.ts";
import { waitFor } from "../support/wait.ts";
import { holdStill } from "../support/hold-still.ts";

const logger = createLogger("outbox-relay-test", "silent");
const EVENTS = 300;

let database: ServiceDatabase;
let pool: Pool;
const buses: EventBus[] = [];

beforeAll(async () => {
  database = await createServiceDatabase("meeting", logger);
  pool = database.pool;
});
afterAll(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
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
        hosts: [],
        settings: DEFAULT_SETTINGS,
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
            await holdStill(20, "widen the window in which the other relay could grab the same rows if locking were wrong");
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
      await waitFor(
        async () => {
          const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE sent_at IS NULL");
          return rows[0]!.n === 0;
        },
        60_000,
        "the relays did not drain the outbox",
      );
      await waitFor(() => new Set(consumer.received.map((received) => received.event.eventId)).size === EVENTS, 30_000, "not every event arrived");
      // The outbox is drained: whatever either relay published is on the topic now, duplicates included.
      await consumer.readAll();
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

describe("claiming outbox rows with a lease, publishing outside the transaction", () => {
  const write = (key: string) =>
    inTransaction(pool, (client) =>
      insertOutboxEvent(client, { id: randomUUID(), topic: "meeting.events", key, type: "svc.meeting.v1.MeetingEnded", value: new Uint8Array([1]) }),
    );
  /** A publish the test finishes by hand: the broker is slow. */
  const stalledPublish = () => {
    let finish!: () => void;
    const published: OutboxEvent[][] = [];
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const publish = async (events: OutboxEvent[]) => {
      published.push(events);
      await finished;
    };
    return { published, finish, publish };
  };
  const idleInTransaction = async () =>
    (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'"))
      .rows[0]!.n;

  it("holds no transaction open while a publish is slow, lets no other relay publish the leased rows, and marks them sent after", async () => {
    await pool.query("TRUNCATE outbox");
    await write("meeting-1");
    await write("meeting-2");
    const slow = stalledPublish();
    const first = createOutbox(pool).publishPending(10, slow.publish);
    await waitFor(() => slow.published.length === 1, 5_000, "the first relay did not publish");
    expect(await idleInTransaction()).toBe(0);

    const other: OutboxEvent[][] = [];
    expect(await createOutbox(pool).publishPending(10, async (events) => void other.push(events))).toBe(0);
    expect(other).toEqual([]);

    slow.finish();
    expect(await first).toBe(2);
    expect((await pool.query("SELECT 1 FROM outbox WHERE sent_at IS NULL")).rowCount).toBe(0);
  });

  it("publishes a crashed relay's rows again once its lease expires; the late relay cannot mark them", async () => {
    await pool.query("TRUNCATE outbox");
    await write("meeting-1");
    const stuck = stalledPublish();
    const crashed = createOutbox(pool, { leaseMs: 300 }).publishPending(10, stuck.publish);
    await waitFor(() => stuck.published.length === 1, 5_000, "the first relay did not publish");

    // Once the lease has expired, another relay takes the rows and publishes them.
    const again: OutboxEvent[][] = [];
    const other = createOutbox(pool);
    await waitFor(async () => (await other.publishPending(10, async (events) => void again.push(events))) === 1, 5_000, "the rows were not published again");
    expect(again[0]!.map((event) => event.id)).toEqual(stuck.published[0]!.map((event) => event.id));
    stuck.finish();
    expect(await crashed).toBe(0); // its lease was taken over: the rows are not its to mark
    expect((await pool.query("SELECT 1 FROM outbox WHERE sent_at IS NOT NULL")).rowCount).toBe(1);
  });

  it("keeps a meeting's events in order: no relay takes a meeting's later event while an earlier one is leased to another", async () => {
    await pool.query("TRUNCATE outbox");
    await write("meeting-1");
    const slow = stalledPublish();
    const first = createOutbox(pool).publishPending(1, slow.publish);
    await waitFor(() => slow.published.length === 1, 5_000, "the first relay did not publish");
    await write("meeting-1");
    await write("meeting-2");
    const other: OutboxEvent[][] = [];
    expect(await createOutbox(pool).publishPending(10, async (events) => void other.push(events))).toBe(1);
    expect(other[0]!.map((event) => event.key)).toEqual(["meeting-2"]);
    slow.finish();
    await first;
    expect(await createOutbox(pool).publishPending(10, async (events) => void other.push(events))).toBe(1);
    expect(other[1]!.map((event) => event.key)).toEqual(["meeting-1"]);
  });
});

describe("the relay under load", () => {
  const write = (key: string) =>
    inTransaction(pool, (client) =>
      insertOutboxEvent(client, { id: randomUUID(), topic: "meeting.events", key, type: "svc.meeting.v1.MeetingEnded", value: new Uint8Array([1]) }),
    );

  it("publishes the first event of a quiet outbox at once, and the events written while it keeps coming together in the next pass", async () => {
    await pool.query("TRUNCATE outbox");
    const passes: { at: number; keys: string[] }[] = [];
    const relay = startOutboxRelay({
      outbox: createOutbox(pool),
      publisher: {
        publish: async (events) => void passes.push({ at: performance.now(), keys: events.map((event) => event.key) }),
        close: async () => undefined,
      },
      logger,
      pollIntervalMs: 60_000,
      maxBackoffMs: 1_000,
      // Long beside the writes below, so that on a busy machine they still fall within one interval.
      busyPassIntervalMs: 2_000,
    });
    try {
      const woken = performance.now();
      await write("meeting-0");
      relay.wake();
      await waitFor(() => passes.length === 1, 5_000, "the first event was not published");
      // At once: no waiting for the interval after a quiet pass.
      expect(passes[0]!.at - woken).toBeLessThan(1_000);
      // Each request writes its event and wakes the relay, as a meeting's change does.
      for (let index = 1; index <= 9; index++) {
        await write(`meeting-${index}`);
        relay.wake();
      }
      await waitFor(() => passes.flatMap((pass) => pass.keys).length === 10, 10_000, "not every event was published");
    } finally {
      await relay.stop();
    }
    expect(passes.map((pass) => pass.keys.length)).toEqual([1, 9]);
  });
});
