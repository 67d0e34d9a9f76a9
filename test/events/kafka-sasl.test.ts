// The platform's Kafka event bus against a real broker that demands SASL: meeting's configuration
// (KAFKA_SASL_*) publishes, webhook's consumes, with SCRAM-SHA-512 and with PLAIN; wrong
// credentials are refused by the broker. The broker is this file's own (test/support/sasl-kafka-broker.ts),
// never the shared one on 9092.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, parseConfig } from "@svc/platform";
import { createEventBus, type EventBus, type IncomingEvent, type OutgoingEvent } from "@svc/platform/events";
import { configSchema as meetingConfig } from "../../services/meeting/src/config.ts";
import { configSchema as webhookConfig } from "../../services/webhook/src/config.ts";
import { closeBusesAfterEach } from "../support/event-bus-fixtures.ts";
import { uniqueName } from "../support/infra.ts";
import { startSaslKafkaBroker, type SaslKafkaBroker } from "../support/sasl-kafka-broker.ts";
import { waitFor } from "../support/wait.ts";

const logger = createLogger("kafka-sasl-test", "silent");
// Principals as the topic ACLs in docs/operations.md name them: meeting produces, webhook consumes.
const meetingUser = { username: "svc-meeting", password: `meeting-${randomUUID()}` };
const webhookUser = { username: "svc-webhook", password: `webhook-${randomUUID()}` };

let broker: SaslKafkaBroker;

beforeAll(async () => {
  broker = await startSaslKafkaBroker([meetingUser, webhookUser]);
  // The figures for the report: a JVM on a shared 2-core machine.
  console.info(`SASL test broker: storage format with SCRAM users ${broker.formatMs} ms, start until listening ${broker.startMs} ms`);
}, 240_000);

const closedAfterTest = closeBusesAfterEach();

afterAll(async () => {
  await broker?.stop();
}, 60_000);

/** An event bus built exactly as a service builds it: its configuration schema, then createEventBus. */
async function busOf(service: "meeting" | "webhook", topicPrefix: string, sasl: Record<string, string>) {
  const schema = service === "meeting" ? meetingConfig : webhookConfig;
  const config = parseConfig(schema, {
    DATABASE_URL: "postgres://svc@127.0.0.1:1/unused",
    KAFKA_BROKERS: broker.brokers,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    ...sasl,
  });
  const bus = closedAfterTest(await createEventBus(config, logger, service));
  expect(bus.transport).toBe("kafka");
  return bus;
}

const credentials = (mechanism: "scram-sha-512" | "plain", user: { username: string; password: string }) => ({
  KAFKA_SASL_MECHANISM: mechanism,
  KAFKA_SASL_USERNAME: user.username,
  KAFKA_SASL_PASSWORD: user.password,
});

const event = (key: string): OutgoingEvent => ({
  topic: "meeting.events",
  key,
  id: randomUUID(),
  value: new TextEncoder().encode(`payload of ${key}`),
  type: "svc.meeting.v1.MeetingEnded",
});

/** The error one publish of a probe event fails with; undefined when it is published. */
const publishFailure = (bus: EventBus, key: string): Promise<unknown> =>
  bus
    .publisher()
    .publish([event(key)])
    .then(
      () => undefined,
      (failure: unknown) => failure,
    );

describe.each(["scram-sha-512", "plain"] as const)("the Kafka event bus over SASL %s", (mechanism) => {
  it("meeting's configuration publishes and webhook's consumes through the broker that demands it", async () => {
    const prefix = `${uniqueName(mechanism.replace(/-/g, ""))}.`;
    const consumer = await busOf("webhook", prefix, credentials(mechanism, webhookUser));
    const received: IncomingEvent[] = [];
    await consumer.subscriber().start({ topic: "meeting.events", groupId: "webhook", handleBatch: async (events) => void received.push(...events) });
    const sent = [event("meeting-1"), event("meeting-2")];
    await (await busOf("meeting", prefix, credentials(mechanism, meetingUser))).publisher().publish(sent);
    await waitFor(() => received.length === 2, 60_000, "events published over SASL were not consumed");
    expect(received.map((incoming) => incoming.id).sort()).toEqual(sent.map((outgoing) => outgoing.id).sort());
    expect(received[0]).toMatchObject({ topic: "meeting.events", type: "svc.meeting.v1.MeetingEnded" });
  }, 120_000);

  it("a wrong password is refused by the broker: nothing is published", async () => {
    const bus = await busOf("meeting", `${uniqueName("wrong")}.`, credentials(mechanism, { ...meetingUser, password: "not-the-password" }));
    const error = await publishFailure(bus, "meeting-x");
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/SASL .*authentication failed|Authentication failed|invalid credentials/i);
  }, 120_000);

  it("an unknown user is refused too", async () => {
    const bus = await busOf("meeting", `${uniqueName("unknown")}.`, credentials(mechanism, { username: "nobody", password: meetingUser.password }));
    const error = await publishFailure(bus, "meeting-y");
    expect(String((error as Error | undefined)?.message)).toMatch(/SASL .*authentication failed|Authentication failed|invalid credentials/i);
  }, 120_000);
});

describe("the broker really demands SASL", () => {
  it("a client without credentials gets no answer it can use (the connection is refused before any request)", async () => {
    const bus = await busOf("meeting", `${uniqueName("nosasl")}.`, {});
    const error = await publishFailure(bus, "meeting-z");
    expect(error).toBeInstanceOf(Error);
  }, 120_000);
});
