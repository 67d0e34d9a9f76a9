import { randomBytes, randomUUID } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createKafkaEventBus, type EventBus, type IncomingEvent, type OutgoingEvent } from "@svc/platform/events";
import { MeetingEndedSchema, MeetingEndReason } from "@svc/proto/svc/meeting/v1/events_pb";
import { meetingEventsSubscription } from "../../services/webhook/src/consumer/meeting-events.ts";
import { DEFAULT_PENDING_CAPS, type PendingCaps } from "../../services/webhook/src/delivery/pending-caps.ts";
import { createSecretBox } from "../../services/webhook/src/signing/secret-box.ts";
import { infra, uniqueName } from "../support/infra.ts";
import { useServiceDatabase } from "../support/service-database.ts";
import { storeSubscription } from "../support/stored-subscriptions.ts";
import { waitFor } from "../support/wait.ts";

// The webhook service's consumer of meeting.events takes events in batches: a batch is stored in
// one statement, with every rule of storing one event at a time kept (skipping what can never be
// stored, no delivery twice, the pending caps, each event's own context).
const logger = createLogger("meeting-events-batch-test", "silent");
const secretBox = createSecretBox(randomBytes(32));
const database = useServiceDatabase("webhook", logger, { max: 4 });
const buses: EventBus[] = [];
afterAll(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
});

let orgId: string;
beforeEach(() => {
  orgId = uniqueName("org");
});

const subscribe = async () => (await storeSubscription(database.pool, secretBox, orgId)).id;

/** A meeting.ended event of the test's organization as the meeting service publishes it. */
function meetingEnded(): OutgoingEvent {
  const meetingId = randomUUID();
  const eventId = randomUUID();
  const message = create(MeetingEndedSchema, {
    eventId,
    orgId,
    occurredAt: timestampFromDate(new Date()),
    meeting: { id: meetingId, title: "Batch", endedAt: timestampFromDate(new Date()) },
    reason: MeetingEndReason.ENDED_BY_API,
  });
  return { topic: "meeting.events", key: meetingId, id: eventId, type: MeetingEndedSchema.typeName, value: toBinary(MeetingEndedSchema, message) };
}

/** The event as a bus hands it to the consumer, its consumption context naming a request of its own. */
const received = (event: OutgoingEvent): IncomingEvent => ({ ...event, context: {}, consumptionContext: { "x-request-id": `req-${event.id}` } });

/** Bytes that are no MeetingEnded (an invalid wire type): the event can never be decoded. */
const malformed = (): IncomingEvent => received({ ...meetingEnded(), value: new Uint8Array([0xff, 0xff, 0xff, 0xff]) });

function consumer(caps: PendingCaps = DEFAULT_PENDING_CAPS) {
  let wakes = 0;
  const subscription = meetingEventsSubscription({ pool: database.pool, logger, pendingCaps: caps, onDeliveriesStored: () => void wakes++ });
  return { subscription, wakes: () => wakes };
}

async function deliveriesOf(eventIds: string[]) {
  const { rows } = await database.pool.query<{ event_id: string; subscription_id: string; status: string; tx: string; context: Record<string, string> }>(
    `SELECT d.event_id, d.subscription_id, d.status, d.xmin::text AS tx, e.context_headers AS context
       FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.event_id = ANY ($1) ORDER BY d.created_at`,
    [eventIds],
  );
  return rows;
}

describe("the meeting-events consumer, a batch at a time", () => {
  it("stores a batch in one transaction, each event with its own consumption context, skipping a malformed event inside it", async () => {
    await subscribe();
    const { subscription, wakes } = consumer();
    const events = [meetingEnded(), meetingEnded(), meetingEnded()].map(received);
    await subscription.handleBatch([events[0]!, malformed(), events[1]!, events[2]!]);

    const stored = await deliveriesOf(events.map((event) => event.id));
    expect(stored.map((row) => row.event_id).sort()).toEqual(events.map((event) => event.id).sort());
    expect(stored.every((row) => row.status === "pending")).toBe(true);
    // One statement, so one transaction (one commit) for the whole batch.
    expect(new Set(stored.map((row) => row.tx)).size).toBe(1);
    for (const row of stored) expect(row.context).toEqual({ "x-request-id": `req-${row.event_id}` });
    // The dispatcher is woken once for the batch.
    expect(wakes()).toBe(1);
  });

  it("stores nothing twice when a batch comes again (redelivered after a crash), overlaps another, or holds an event twice", async () => {
    const subscriptions = [await subscribe(), await subscribe()];
    const { subscription } = consumer();
    const [first, second, third] = [meetingEnded(), meetingEnded(), meetingEnded()].map(received);
    await subscription.handleBatch([first!, second!]);
    await subscription.handleBatch([first!, second!]);
    await subscription.handleBatch([second!, third!, third!]);

    const stored = await deliveriesOf([first!.id, second!.id, third!.id]);
    expect(stored).toHaveLength(3 * subscriptions.length);
    expect(new Set(stored.map((row) => `${row.event_id}/${row.subscription_id}`)).size).toBe(stored.length);
  });

  it("counts a batch's earlier deliveries against an endpoint's pending cap, as if its events came one by one", async () => {
    await subscribe();
    const { subscription } = consumer({ perEndpoint: 3, perOrganization: 1_000 });
    const events = Array.from({ length: 5 }, () => received(meetingEnded()));
    await subscription.handleBatch(events);

    const stored = await deliveriesOf(events.map((event) => event.id));
    const statusOf = new Map(stored.map((row) => [row.event_id, row.status]));
    expect(events.map((event) => statusOf.get(event.id))).toEqual(["pending", "pending", "pending", "failed", "failed"]);
  });

  it("counts a batch's earlier deliveries against the organization's pending cap over all its endpoints", async () => {
    await subscribe();
    await subscribe();
    const { subscription } = consumer({ perEndpoint: 1_000, perOrganization: 4 });
    const events = Array.from({ length: 3 }, () => received(meetingEnded()));
    await subscription.handleBatch(events);

    const stored = await deliveriesOf(events.map((event) => event.id));
    expect(stored.filter((row) => row.status === "pending")).toHaveLength(4);
    // The last event's deliveries are the ones beyond the cap.
    expect(stored.filter((row) => row.status === "failed").map((row) => row.event_id)).toEqual([events[2]!.id, events[2]!.id]);
  });
});

describe("the meeting-events consumer over Kafka", () => {
  it("a batch whose offsets were not committed (the process died after storing it) is redelivered and stores nothing twice", { timeout: 60_000 }, async () => {
    const subscriptions = [await subscribe(), await subscribe()];
    const bus = createKafkaEventBus({ brokers: infra.kafkaBrokers().split(","), topicPrefix: `${uniqueName("batch")}.`, clientId: "batch-test", logger });
    buses.push(bus);
    const events = Array.from({ length: 40 }, () => meetingEnded());
    // Published before the consumer starts, so its first fetch holds batches of several events.
    await bus.publisher().publish(events);

    const { subscription } = consumer();
    const batchSizes: number[] = [];
    let crashed = false;
    await bus.subscriber().start({
      ...subscription,
      async handleBatch(batch) {
        batchSizes.push(batch.length);
        await subscription.handleBatch(batch);
        // The statement has committed; the offsets have not: as if the process died right here.
        if (!crashed) {
          crashed = true;
          throw new Error("the process died before committing its offsets");
        }
      },
    });

    await waitFor(
      async () => (await deliveriesOf(events.map((event) => event.id))).length === events.length * subscriptions.length && batchSizes.length > 1,
      45_000,
      "not every event was stored",
    );
    const stored = await deliveriesOf(events.map((event) => event.id));
    expect(new Set(stored.map((row) => `${row.event_id}/${row.subscription_id}`)).size).toBe(events.length * subscriptions.length);
    expect(stored).toHaveLength(events.length * subscriptions.length);
    // Batched: far fewer calls than events (the first one redelivered).
    expect(Math.max(...batchSizes)).toBeGreaterThan(1);
  });
});
