import { fromBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createPostgresEventBus, type EventBus, type IncomingEvent } from "@svc/platform/events";
import { MeetingEndedSchema } from "@svc/proto/svc/meeting/v1/events_pb";
import { succeeded, useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { holdStill } from "../support/hold-still.ts";

// The embedded default: no KAFKA_BROKERS, so the meeting service's outbox feeds the durable
// Postgres-backed bus, which consumers read through the same EventSubscriber interface.

let tenant: Tenant;
let bus: EventBus;
const received: IncomingEvent[] = [];
const fixture = useStack({ kafka: false });

beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
  bus = await createPostgresEventBus({
    databaseUrl: fixture.stack.databaseUrl,
    topicPrefix: "",
    logger: createLogger("embedded-test", "silent"),
    pollIntervalMs: 200,
  });
  await bus.subscriber().start({ topic: "meeting.events", groupId: "embedded-test", handleBatch: async (events) => void received.push(...events) });
});
afterAll(async () => {
  await bus?.close();
});

const createMeeting = (body: { title: string; start?: string; attendees?: string | string[] }) =>
  succeeded(fixture.client(tenant.apiKey).POST("/meeting", { body }));
const endMeeting = (id: string) => succeeded(fixture.client(tenant.apiKey).POST("/meeting/{id}/end", { params: { path: { id } } }));

const eventsFor = (id: string) => received.filter((event) => event.key === id);

describe("without Kafka, meeting.ended travels over the Postgres-backed event bus", () => {
  it("ending a meeting delivers one MeetingEnded to a subscriber, also when ended twice", async () => {
    const { id } = await createMeeting({ title: "Embedded", attendees: "a@example.com" });
    await endMeeting(id);
    await endMeeting(id);
    await waitFor(() => eventsFor(id).length === 1, 15_000, "MeetingEnded did not arrive");
    await holdStill(1_500, "a negative (the second end publishes nothing): time for a duplicate to arrive at a 200 ms poll");
    expect(eventsFor(id)).toHaveLength(1);
    const [event] = eventsFor(id) as [IncomingEvent];
    expect(event.type).toBe("svc.meeting.v1.MeetingEnded");
    const message = fromBinary(MeetingEndedSchema, event.value);
    expect(message.eventId).toBe(event.id);
    expect(message.orgId).toBe(tenant.orgId);
    expect(message.meeting).toMatchObject({ id, title: "Embedded", attendees: ["a@example.com"] });
    const { rows } = await fixture.stack.query("SELECT count(*)::int AS n FROM meeting.outbox WHERE key = $1 AND sent_at IS NOT NULL", [id]);
    expect(rows[0]!.n).toBe(1);
    // Carried by the Postgres transport: the event sits in the bus's own schema.
    const stored = await fixture.stack.query("SELECT event_id FROM event_bus.events WHERE key = $1", [id]);
    expect(stored.rows.map((row) => row.event_id)).toEqual([event.id]);
  });
});
