import { describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createKafkaEventBus, createPostgresEventBus, type EventBus } from "@svc/platform/events";
import { consumerLagGauge, createMetricsRegistry } from "@svc/platform/telemetry";
import { closeBusesAfterEach, probeEvent as event } from "../support/event-bus-fixtures.ts";
import { createTestDatabase, infra, uniqueName } from "../support/infra.ts";
import { useResource } from "../support/use-resource.ts";
import { waitFor } from "../support/wait.ts";

// The consumer-lag gauge against both real transports: events published and not yet consumed
// count, and the count falls to zero once a consumer has handled (and committed) them.
const logger = createLogger("consumer-lag-test", "silent");
const database = useResource("the test database", createTestDatabase, (created) => created.drop());
const closedAfterTest = closeBusesAfterEach();

const transports: Record<string, (prefix: string) => Promise<EventBus>> = {
  kafka: async (prefix) => createKafkaEventBus({ brokers: infra.kafkaBrokers().split(","), topicPrefix: prefix, clientId: "consumer-lag-test", logger }),
  postgres: (prefix) => createPostgresEventBus({ databaseUrl: database().url, topicPrefix: prefix, logger, pollIntervalMs: 200 }),
};

describe.each(Object.keys(transports))("consumer lag on the %s bus", (transport) => {
  it("counts the events a group has not consumed, in event_consumer_lag_messages, and falls to zero as it consumes", async () => {
    const bus = closedAfterTest(await transports[transport]!(`${uniqueName("lag")}.`));
    const subscription = { topic: "meeting.events", groupId: "webhook-delivery" };
    const registry = createMetricsRegistry("webhook");
    consumerLagGauge(registry, bus, [subscription], logger);
    const scrapedLag = async () => {
      const text = await registry.metrics();
      const line = text.split("\n").find((candidate) => candidate.startsWith("event_consumer_lag_messages{"));
      return line === undefined ? undefined : { line, value: Number(line.slice(line.lastIndexOf(" ") + 1)) };
    };

    await bus.publisher().publish(["a", "b", "c", "a", "b"].map((key) => event(key)));
    expect(await bus.consumerLag(subscription)).toBe(5);
    const before = await scrapedLag();
    expect(before?.value).toBe(5);
    // Logical names only: neither the deployment's prefix nor any id reaches a label.
    expect(before?.line).toMatch(/^event_consumer_lag_messages\{topic="meeting\.events",consumer_group="webhook-delivery",service="webhook"\} 5$/);

    let handled = 0;
    await bus.subscriber().start({ ...subscription, handleBatch: async (events) => void (handled += events.length) });
    await waitFor(() => handled >= 5, 30_000, "the consumer did not handle the events");
    await waitFor(async () => (await bus.consumerLag(subscription)) === 0, 30_000, "the lag did not fall to zero");
    expect((await scrapedLag())?.value).toBe(0);

    await bus.publisher().publish([event("d")]);
    await waitFor(() => handled >= 6, 30_000, "the consumer did not handle the new event");
    await waitFor(async () => (await scrapedLag())?.value === 0, 30_000, "the lag did not return to zero");
  });
});
