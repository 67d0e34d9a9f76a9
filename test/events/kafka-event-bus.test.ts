import { Kafka, logLevel } from "kafkajs";
import { describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createKafkaEventBus, type IncomingEvent } from "@svc/platform/events";
import {
  closeBusesAfterEach,
  expectContextReachesHandler,
  expectRedeliveredUntilHandled,
  probeEvent as event,
  probeText,
} from "../support/event-bus-fixtures.ts";
import { infra, uniqueName } from "../support/infra.ts";
import { holdStill } from "../support/hold-still.ts";
import { waitFor } from "../support/wait.ts";

const logger = createLogger("event-bus-test", "silent");
const closedAfterTest = closeBusesAfterEach();

function openBus(topicPrefix: string) {
  return closedAfterTest(createKafkaEventBus({ brokers: infra.kafkaBrokers().split(","), topicPrefix, clientId: "event-bus-test", logger }));
}

describe("the Kafka event bus", () => {
  it("creates the prefixed topic and writes key, protobuf bytes and the event-id and content-type headers", async () => {
    const prefix = `${uniqueName("k")}.`;
    const sent = event("meeting-1", "payload");
    await openBus(prefix).publisher().publish([sent]);

    const kafka = new Kafka({ clientId: "probe", brokers: infra.kafkaBrokers().split(","), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const metadata = await admin.fetchTopicMetadata({ topics: [`${prefix}meeting.events`] });
    await admin.disconnect();
    expect(metadata.topics[0]!.partitions.length).toBe(4);

    const consumer = kafka.consumer({ groupId: uniqueName("probe") });
    await consumer.connect();
    await consumer.subscribe({ topic: `${prefix}meeting.events`, fromBeginning: true });
    const raw = await new Promise<{ key: string; value: string; headers: Record<string, string> }>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) =>
          resolve({
            key: message.key!.toString(),
            value: message.value!.toString(),
            headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)])),
          }),
      });
    });
    await consumer.disconnect();
    expect(raw).toEqual({
      key: "meeting-1",
      value: "payload",
      headers: { "event-id": sent.id, "content-type": "application/x-protobuf; messageType=svc.test.v1.Probe" },
    });
  });

  it("an idle subscriber closes within a second and a half (its fetch in flight is not held for kafkajs's default 5 s)", async () => {
    const bus = openBus(`${uniqueName("k")}.`);
    const subscriber = bus.subscriber();
    await subscriber.start({ topic: "meeting.events", groupId: "g", handleBatch: async () => undefined });
    // Idle long enough that a fetch is waiting on the broker when the close comes.
    await holdStill(1_500, "the subscriber idles on an empty topic, a fetch in flight");
    const closing = Date.now();
    await subscriber.close();
    expect(Date.now() - closing).toBeLessThan(1_500);
  });

  it("delivers published events to a subscriber with id, key, type and value, in order per key", async () => {
    const prefix = `${uniqueName("k")}.`;
    const bus = openBus(prefix);
    const received: IncomingEvent[] = [];
    await bus.subscriber().start({ topic: "meeting.events", groupId: "g", handleBatch: async (events) => void received.push(...events) });
    const sent = [event("m1", "first"), event("m2", "other"), event("m1", "second")];
    await bus.publisher().publish(sent);
    await waitFor(() => received.length === 3, 20_000);
    const first = received.find((incoming) => incoming.id === sent[0]!.id)!;
    expect(first).toMatchObject({ topic: "meeting.events", key: "m1", type: "svc.test.v1.Probe" });
    expect(received.filter((incoming) => incoming.key === "m1").map(probeText)).toEqual(["first", "second"]);
  });

  it("redelivers an event whose handler failed (with a TypeError, which kafkajs alone would not retry) until it succeeds, holding later events of that key", async () => {
    await expectRedeliveredUntilHandled(openBus(`${uniqueName("k")}.`), new TypeError("a bug in the handler"), 30_000);
  });

  it("gives a second consumer group every event, including those published before it started", async () => {
    const prefix = `${uniqueName("k")}.`;
    const bus = openBus(prefix);
    const sent = [event("a"), event("b")];
    await bus.publisher().publish(sent);
    const seen = { first: [] as string[], second: [] as string[] };
    await bus
      .subscriber()
      .start({ topic: "meeting.events", groupId: "first", handleBatch: async (events) => void seen.first.push(...events.map((incoming) => incoming.id)) });
    await bus
      .subscriber()
      .start({ topic: "meeting.events", groupId: "second", handleBatch: async (events) => void seen.second.push(...events.map((incoming) => incoming.id)) });
    await waitFor(() => seen.first.length === 2 && seen.second.length === 2, 20_000);
    expect(seen.first.sort()).toEqual(sent.map((outgoing) => outgoing.id).sort());
    expect(seen.second.sort()).toEqual(sent.map((outgoing) => outgoing.id).sort());
  });

  it("carries an event's context to its handler, which runs as part of the request that published it", async () => {
    await expectContextReachesHandler(openBus(`${uniqueName("k")}.`), "req-kafka-1", 20_000);
  });
});
