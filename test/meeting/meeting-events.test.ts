import { timestampDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumeMeetingEvents, type ReceivedEvent } from "../support/meeting-events.ts";
import { succeeded, useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";

let tenant: Tenant;
let consumer: Awaited<ReturnType<typeof consumeMeetingEvents>>;
const fixture = useStack();

beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
  consumer = await consumeMeetingEvents(fixture.stack.env.KAFKA_TOPIC_PREFIX!);
});
afterAll(async () => {
  await consumer?.stop();
});

const createMeeting = (body: { title: string; start?: string; attendees?: string | string[] }) =>
  succeeded(fixture.client(tenant.apiKey).POST("/meeting", { body }));
const endMeeting = (id: string) => succeeded(fixture.client(tenant.apiKey).POST("/meeting/{id}/end", { params: { path: { id } } }));

const eventsFor = (id: string): ReceivedEvent[] => consumer.received.filter((received) => received.event.meeting?.id === id);

describe("ending a meeting publishes meeting.ended to Kafka (topic meeting.events)", () => {
  it("a MeetingEnded protobuf arrives, keyed by meeting id, with event-id and content-type headers", async () => {
    const { id } = await createMeeting({ title: "Retro", start: "2020-05-01T10:00:00.000Z", attendees: ["a@example.com", "B@example.com"] });
    const ended = await endMeeting(id);

    await waitFor(() => eventsFor(id).length === 1, 20_000, "MeetingEnded did not arrive");
    const [{ key, headers, event }] = eventsFor(id) as [ReceivedEvent];
    expect(key).toBe(id);
    expect(headers["event-id"]).toBe(event.eventId);
    expect(headers["content-type"]).toBe("application/x-protobuf; messageType=svc.meeting.v1.MeetingEnded");
    expect(event.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(event.orgId).toBe(tenant.orgId);
    expect(event.meeting).toMatchObject({ id, title: "Retro", attendees: ["a@example.com", "B@example.com"], createdByUserId: tenant.userId });
    expect(timestampDate(event.meeting!.start!).toISOString()).toBe("2020-05-01T10:00:00.000Z");
    expect(timestampDate(event.meeting!.endedAt!).toISOString()).toBe(ended.endedAt);
    expect(timestampDate(event.occurredAt!).toISOString()).toBe(ended.endedAt);

    const { rows } = await fixture.stack.query("SELECT sent_at FROM meeting.outbox WHERE key = $1", [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sent_at).toBeInstanceOf(Date);
  });

  it("a meeting without start or attendees is published with neither", async () => {
    const { id } = await createMeeting({ title: "Bare" });
    await endMeeting(id);
    await waitFor(() => eventsFor(id).length === 1, 20_000, "MeetingEnded did not arrive");
    expect(eventsFor(id)[0]!.event.meeting!.start).toBeUndefined();
    expect(eventsFor(id)[0]!.event.meeting!.attendees).toEqual([]);
  });

  it("ending twice yields one message", async () => {
    const { id } = await createMeeting({ title: "Twice" });
    await endMeeting(id);
    await endMeeting(id);
    // A later meeting's event proves the relay has moved past anything the second end could have written.
    const { id: marker } = await createMeeting({ title: "Marker" });
    await endMeeting(marker);
    await waitFor(() => eventsFor(id).length >= 1 && eventsFor(marker).length >= 1, 20_000, "events did not arrive");
    await consumer.readAll();
    expect(eventsFor(id)).toHaveLength(1);
  });
});
