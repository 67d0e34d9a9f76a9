import pg from "pg";
import { describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createPostgresEventBus, type IncomingEvent } from "@svc/platform/events";
import {
  closeBusesAfterEach,
  expectContextReachesHandler,
  expectRedeliveredUntilHandled,
  probeEvent as event,
  probeText as text,
} from "../support/event-bus-fixtures.ts";
import { createTestDatabase, uniqueName } from "../support/infra.ts";
import { useResource } from "../support/use-resource.ts";
import { waitFor } from "../support/wait.ts";
import { holdStill } from "../support/hold-still.ts";

const logger = createLogger("event-bus-test", "silent");
const database = useResource("the test database", createTestDatabase, (created) => created.drop());
const closedAfterTest = closeBusesAfterEach();

/** A bus on this file's database with its own topic prefix, polling fast so tests do not wait. */
async function openBus(topicPrefix: string, options: { pollIntervalMs?: number } = {}) {
  return closedAfterTest(await createPostgresEventBus({ databaseUrl: database().url, topicPrefix, logger, pollIntervalMs: options.pollIntervalMs ?? 200 }));
}

describe("the Postgres-backed event bus (embedded default)", () => {
  it("delivers each published event with its id, key, type and value, in order per key", async () => {
    const prefix = `${uniqueName("p")}.`;
    const bus = await openBus(prefix);
    const received: IncomingEvent[] = [];
    await bus.subscriber().start({ topic: "meeting.events", groupId: "g", handleBatch: async (events) => void received.push(...events) });
    const sent = [event("m1", "first"), event("m2", "other"), event("m1", "second"), event("m1", "third")];
    await bus.publisher().publish(sent);

    await waitFor(() => received.length === 4);
    expect(received.map((incoming) => incoming.id).sort()).toEqual(sent.map((outgoing) => outgoing.id).sort());
    const first = received.find((incoming) => incoming.id === sent[0]!.id)!;
    expect(first).toMatchObject({ topic: "meeting.events", key: "m1", type: "svc.test.v1.Probe" });
    expect(text(first)).toBe("first");
    expect(received.filter((incoming) => incoming.key === "m1").map(text)).toEqual(["first", "second", "third"]);
  });

  it("wakes an idle consumer through LISTEN/NOTIFY well before its poll interval", async () => {
    const prefix = `${uniqueName("p")}.`;
    const bus = await openBus(prefix, { pollIntervalMs: 30_000 });
    const received: IncomingEvent[] = [];
    await bus.subscriber().start({ topic: "meeting.events", groupId: "g", handleBatch: async (events) => void received.push(...events) });
    await holdStill(500, "let the consumer go idle on its first empty read");
    const publishedAt = Date.now();
    await bus.publisher().publish([event("k")]);
    await waitFor(() => received.length === 1, 5_000);
    expect(Date.now() - publishedAt).toBeLessThan(2_000);
  });

  it("shares one group's events between two consumers, each event handled once", async () => {
    const prefix = `${uniqueName("p")}.`;
    const [busA, busB] = [await openBus(prefix), await openBus(prefix)];
    const handledBy = new Map<string, string[]>();
    const handler = (name: string) => async (events: IncomingEvent[]) => {
      for (const incoming of events) handledBy.set(incoming.id, [...(handledBy.get(incoming.id) ?? []), name]);
      await holdStill(5, "a handler that takes a moment, so both consumers are busy at once");
    };
    await busA.subscriber().start({ topic: "meeting.events", groupId: "workers", handleBatch: handler("a") });
    await busB.subscriber().start({ topic: "meeting.events", groupId: "workers", handleBatch: handler("b") });
    const sent = Array.from({ length: 200 }, (_, index) => event(`meeting-${index}`));
    await busA.publisher().publish(sent);

    await waitFor(() => handledBy.size === 200, 20_000);
    await holdStill(500, "a negative (no event handled twice): time for a second handling to happen");
    expect([...handledBy.values()].every((names) => names.length === 1)).toBe(true);
    const byA = [...handledBy.values()].filter(([name]) => name === "a").length;
    expect(byA).toBeGreaterThan(0);
    expect(byA).toBeLessThan(200);
  });

  it("gives every consumer group every event", async () => {
    const prefix = `${uniqueName("p")}.`;
    const bus = await openBus(prefix);
    const seen = { webhooks: [] as string[], audit: [] as string[] };
    await bus.subscriber().start({
      topic: "meeting.events",
      groupId: "webhooks",
      handleBatch: async (events) => void seen.webhooks.push(...events.map((incoming) => incoming.id)),
    });
    await bus
      .subscriber()
      .start({ topic: "meeting.events", groupId: "audit", handleBatch: async (events) => void seen.audit.push(...events.map((incoming) => incoming.id)) });
    const sent = [event("a"), event("b"), event("c")];
    await bus.publisher().publish(sent);
    await waitFor(() => seen.webhooks.length === 3 && seen.audit.length === 3);
    expect(seen.webhooks.sort()).toEqual(sent.map((outgoing) => outgoing.id).sort());
    expect(seen.audit.sort()).toEqual(sent.map((outgoing) => outgoing.id).sort());
  });

  it("a group that starts later still receives events published before it first ran", async () => {
    const prefix = `${uniqueName("p")}.`;
    const bus = await openBus(prefix);
    const sent = event("early");
    await bus.publisher().publish([sent]);
    const received: string[] = [];
    await bus
      .subscriber()
      .start({ topic: "meeting.events", groupId: "late", handleBatch: async (events) => void received.push(...events.map((incoming) => incoming.id)) });
    await waitFor(() => received.length === 1);
    expect(received).toEqual([sent.id]);
  });

  it("redelivers an event whose handler failed, and holds later events of that key until it succeeds", async () => {
    await expectRedeliveredUntilHandled(await openBus(`${uniqueName("p")}.`), new Error("receiver down"), 15_000);
  });

  it("stores a republished event (same id) once", async () => {
    const prefix = `${uniqueName("p")}.`;
    const bus = await openBus(prefix);
    const once = event("k");
    await bus.publisher().publish([once]);
    await bus.publisher().publish([once]);
    const client = new pg.Client({ connectionString: database().url });
    await client.connect();
    const { rows } = await client.query("SELECT count(*)::int AS n FROM event_bus.events WHERE event_id = $1", [once.id]);
    await client.end();
    expect(rows[0].n).toBe(1);
  });

  it("redelivers to another consumer of the group an event whose consumer died before committing", async () => {
    const prefix = `${uniqueName("p")}.`;
    const dying = await openBus(prefix);
    const sent = event("k");
    let started!: () => void;
    let release!: () => void;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    const handlerReleased = new Promise<void>((resolve) => (release = resolve));
    await dying.subscriber().start({
      topic: "meeting.events",
      groupId: "g",
      handleBatch: () => {
        started();
        return handlerReleased; // the consumer "hangs" mid-event until its session is gone
      },
    });
    await dying.publisher().publish([sent]);
    await handlerStarted;

    // Kill the dying consumer's database session, as a crash would: its claim is rolled back.
    const admin = new pg.Client({ connectionString: database().url });
    await admin.connect();
    await admin.query(
      `SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
        WHERE c.relname = 'consumer_positions' AND l.mode = 'RowShareLock' AND l.pid <> pg_backend_pid()`,
    );
    await admin.end();

    const survivor = await openBus(prefix);
    const received: string[] = [];
    await survivor
      .subscriber()
      .start({ topic: "meeting.events", groupId: "g", handleBatch: async (events) => void received.push(...events.map((incoming) => incoming.id)) });
    await waitFor(() => received.length === 1, 15_000);
    release();
    expect(received).toEqual([sent.id]);
  });

  it("carries an event's context to its handler, which runs as part of the request that published it", async () => {
    await expectContextReachesHandler(await openBus(`${uniqueName("p")}.`), "req-postgres-1", 5_000);
  });
});
