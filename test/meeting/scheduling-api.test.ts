import type { components, operations } from "@svc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectDocumentedShape, fetchOpenApiDocument } from "../support/openapi-document.ts";
import { sendMediaWebhook, mediaParticipant } from "../support/media-webhooks.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { subscribeReceiver } from "../support/webhook-fixtures.ts";
import { holdStill } from "../support/hold-still.ts";

// What a scheduling tool needs (Cal.com's VideoApiAdapter: createMeeting, updateMeeting,
// deleteMeeting): update, cancel and list meetings, and a planned end, over REST, with the events
// each step emits checked at a `standardwebhooks` receiver.
let receiver: WebhookReceiver;
let tenant: Tenant;
let other: Tenant;
const fixture = useStack({ env: { MEETING_EMPTY_GRACE_SECONDS: "1", WEBHOOK_POLL_INTERVAL_MS: "200" } });

const EVENT_TYPES = ["meeting.started", "meeting.ended", "meeting.updated", "meeting.cancelled", "participant.joined", "participant.left"];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  [tenant, other] = await Promise.all([createTenant(fixture.stack), createTenant(fixture.stack)]);
  await subscribeReceiver(fixture.stack, receiver, tenant.apiKey, "/events", { events: EVENT_TYPES });
});
afterAll(async () => {
  await receiver?.close();
});

/** @svc/client as a tenant's API key (this file's tenant unless told otherwise). */
const client = (as: Tenant = tenant) => fixture.client(as.apiKey);
const inPath = (id: string) => ({ params: { path: { id } } });
type MeetingJson = components["schemas"]["Meeting"];
// Bodies and queries are loose on purpose: the refusal tests send what the schema does not allow.
type CreateBody = components["schemas"]["CreateMeetingRequest"];
type ListQuery = NonNullable<operations["listMeetings"]["parameters"]["query"]>;

const post = (body: Record<string, unknown>, as?: Tenant) => client(as).POST("/meeting", { body: body as CreateBody });
const patch = (id: string, body: Record<string, unknown>, as?: Tenant) => client(as).PATCH("/meeting/{id}", { ...inPath(id), body });
const cancel = (id: string, as?: Tenant) => client(as).DELETE("/meeting/{id}", inPath(id));
const end = (id: string) => client().POST("/meeting/{id}/end", inPath(id));
/** GET /meeting with a query written as a URL's (`?pageSize=3`). */
const listQuery = (query: string, as?: Tenant) =>
  client(as).GET("/meeting", { params: { query: Object.fromEntries(new URLSearchParams(query)) as unknown as ListQuery } });

async function create(body: Record<string, unknown>): Promise<MeetingJson> {
  const { data, error, response } = await post(body);
  expect(response.status, JSON.stringify(error)).toBe(200);
  return get(data!.id);
}
const get = async (id: string) => (await client().GET("/meeting/{id}", inPath(id))).data!;
const events = (meetingId: string, type?: string) =>
  receiver
    .on("/events")
    .filter((request) => !request.verificationError && request.payload?.data.meetingId === meetingId && (!type || request.payload.type === type))
    .map((request) => request.payload!);

/** An answer of @svc/client: the parsed error body beside the untouched response. */
async function expectError(answer: { error?: unknown; response: Response }, status: number, message: string | RegExp) {
  expect(answer.response.status).toBe(status);
  const { error } = answer.error as { error: string };
  if (typeof message === "string") expect(error).toBe(message);
  else expect(error).toMatch(message);
}

describe("a planned end on POST /meeting", () => {
  it("takes an end, or a duration in minutes, after the start", async () => {
    const withEnd = await create({ title: "End", start: "2031-03-01T09:00:00Z", end: "2031-03-01T09:45:00+00:00" });
    expect(withEnd.end).toBe("2031-03-01T09:45:00.000Z");
    const withDuration = await create({ title: "Duration", start: "2031-03-01T09:00:00Z", duration: 30 });
    expect(withDuration.end).toBe("2031-03-01T09:30:00.000Z");
  });

  it.each([
    [{ title: "t", end: "2031-03-01T09:45:00Z" }, "end needs a start"],
    [{ title: "t", duration: 30 }, "duration needs a start"],
    [{ title: "t", start: "2031-03-01T09:00:00Z", end: "2031-03-01T08:00:00Z" }, "end must be after start"],
    [{ title: "t", start: "2031-03-01T09:00:00Z", end: "2031-03-01T09:00:00Z" }, "end must be after start"],
    [{ title: "t", start: "2031-03-01T09:00:00Z", end: "2031-03-01T10:00:00Z", duration: 60 }, "give end or duration, not both"],
    [{ title: "t", start: "2031-03-01T09:00:00Z", duration: 0 }, "duration must be a whole number of minutes from 1 to 1440"],
    [{ title: "t", start: "2031-03-01T09:00:00Z", duration: 1441 }, "duration must be a whole number of minutes from 1 to 1440"],
    [{ title: "t", start: "2031-03-01T09:00:00Z", duration: 1.5 }, "duration must be a whole number of minutes or null"],
    [{ title: "t", start: "2031-03-01T09:00:00Z", duration: 1e12 }, "duration must be a whole number of minutes or null"],
    [{ title: "t", start: "2031-03-01T09:00:00Z", duration: "30" }, "duration must be a whole number of minutes or null"],
    [{ title: "t", start: "2031-03-01T09:00:00Z", end: "2031-03-01T10:00" }, /^end must include a UTC offset/],
  ])("refuses %j with 400", async (body, message) => {
    await expectError(await post(body), 400, message);
  });

  it("a meeting whose planned end passes with nobody in it ends by itself (reason end_passed)", async () => {
    const start = new Date(Date.now() - 60_000).toISOString();
    const end = new Date(Date.now() + 1_500).toISOString();
    const meeting = await create({ title: "Nobody came", start, end });
    await waitFor(async () => (await get(meeting.id)).status === "ended", 15_000, "ended after its planned end");
    await waitFor(() => events(meeting.id, "meeting.ended").length === 1, 15_000, "meeting.ended");
    expect(events(meeting.id, "meeting.ended")[0]!.data.reason).toBe("end_passed");
  });

  it("someone in the room keeps the meeting going past its planned end; it ends when they leave", async () => {
    const meeting = await create({ title: "Overrun", start: new Date(Date.now() - 60_000).toISOString(), end: new Date(Date.now() + 500).toISOString() });
    const ada = mediaParticipant("Ada");
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: meeting.id, participant: ada });
    await holdStill(2_500, "a negative (an occupied meeting is not ended at its planned end): well past that end");
    expect((await get(meeting.id)).status).toBe("live");
    await sendMediaWebhook(fixture.stack, { event: "participant_left", meetingId: meeting.id, participant: ada });
    await waitFor(async () => (await get(meeting.id)).status === "ended", 10_000, "ended once empty");
    await waitFor(() => events(meeting.id, "meeting.ended").length === 1, 10_000, "meeting.ended");
    expect(events(meeting.id, "meeting.ended")[0]!.data.reason).toBe("empty");
  });
});

describe("PATCH /api/v1/meeting/:id", () => {
  it("reschedules: moving the start keeps the length; the answer is the stored meeting; meeting.updated names what changed", async () => {
    const meeting = await create({ title: "Sync", start: "2031-04-01T09:00:00Z", duration: 30, attendees: ["a@example.com"] });
    const { data: updated, response } = await patch(meeting.id, { start: "2031-04-02T14:00:00+02:00" });
    expect(response.status).toBe(200);
    expect(updated).toMatchObject({
      id: meeting.id,
      start: "2031-04-02T12:00:00.000Z",
      end: "2031-04-02T12:30:00.000Z",
      title: "Sync",
      attendees: ["a@example.com"],
    });
    expect(await get(meeting.id)).toEqual(updated);
    await waitFor(() => events(meeting.id, "meeting.updated").length === 1, 10_000, "meeting.updated");
    const data = events(meeting.id, "meeting.updated")[0]!.data;
    expect(data.changedFields).toEqual(["start", "end"]);
    expect(data.previous).toEqual({ title: "Sync", start: "2031-04-01T09:00:00.000Z", end: "2031-04-01T09:30:00.000Z", attendees: ["a@example.com"] });
    expect(data).toMatchObject({ start: "2031-04-02T12:00:00.000Z", end: "2031-04-02T12:30:00.000Z" });
  });

  it("changes title and attendees with the creation rules; null clears start and end; an update that changes nothing emits nothing", async () => {
    const meeting = await create({ title: "Old", start: "2031-05-01T09:00:00Z", end: "2031-05-01T10:00:00Z" });
    const changed = (await patch(meeting.id, { title: "  New  ", attendees: ["B@example.com", "b@example.com", "c@example.com"] })).data;
    expect(changed).toMatchObject({ title: "New", attendees: ["B@example.com", "c@example.com"], start: "2031-05-01T09:00:00.000Z" });
    const cleared = (await patch(meeting.id, { start: null })).data;
    expect(cleared).toMatchObject({ start: null, end: null });
    expect((await patch(meeting.id, { title: "New" })).response.status).toBe(200);
    await waitFor(() => events(meeting.id, "meeting.updated").length === 2, 10_000, "two meeting.updated");
    await holdStill(800, "a negative (no third meeting.updated): time for one to be delivered at a 200 ms poll");
    expect(events(meeting.id, "meeting.updated").map((event) => event.data.changedFields)).toEqual([
      ["title", "attendees"],
      ["start", "end"],
    ]);
  });

  it.each([
    [
      {},
      "nothing to update: name at least one of title, start, end, duration, attendees, hosts, lobby, screenShare, noShowAfterMinutes, recording, transcription",
    ],
    [{ title: "" }, "title is required and must not be empty"],
    [{ title: null }, "title must be a string"],
    [{ start: "tomorrow" }, /^start must be an ISO 8601 date-time/],
    [{ end: "2031-06-01T10:00:00Z" }, "end needs a start"],
    [{ attendees: ["not-an-address"] }, /^attendees must be e-mail addresses/],
  ])("refuses %j with 400 and changes nothing", async (body, message) => {
    const meeting = await create({ title: "Unchanged", attendees: ["a@example.com"] });
    await expectError(await patch(meeting.id, body), 400, message);
    expect(await get(meeting.id)).toEqual(meeting);
  });

  it("404 for another organization's or an unknown meeting; 409 for an ended or cancelled one", async () => {
    const meeting = await create({ title: "Mine" });
    await expectError(await patch(meeting.id, { title: "Theirs" }, other), 404, "Meeting not found");
    await expectError(await patch("AAAAAAAAAAAAAAAAAAAAAA", { title: "x" }), 404, "Meeting not found");
    expect((await get(meeting.id)).title).toBe("Mine");
    await end(meeting.id);
    await expectError(await patch(meeting.id, { title: "Late" }), 409, "Meeting has ended and cannot be changed");
    const cancelled = await create({ title: "Called off" });
    await cancel(cancelled.id);
    await expectError(await patch(cancelled.id, { title: "Late" }), 409, "Meeting has been cancelled and cannot be changed");
  });
});

describe("DELETE /api/v1/meeting/:id (cancel)", () => {
  it("cancels: 200 with the meeting, meeting.cancelled once, joins refused with 410, anyone present removed, and no meeting.ended ever", async () => {
    const meeting = await create({ title: "Cancelled", attendees: ["a@example.com"] });
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: meeting.id, participant: mediaParticipant("Early bird") });
    const { data: cancelled, response } = await cancel(meeting.id);
    expect(response.status).toBe(200);
    expect(cancelled).toMatchObject({ id: meeting.id, status: "cancelled", endedAt: null });
    expect(cancelled!.cancelledAt).toMatch(/Z$/);
    const again = await cancel(meeting.id);
    expect(again.response.status).toBe(200);
    expect(again.data!.cancelledAt).toBe(cancelled!.cancelledAt);

    // Joining needs no credential: an anonymous client.
    const join = await fixture.client().POST("/meeting/{id}/join", { ...inPath(meeting.id), body: { displayName: "Late" } });
    await expectError(join, 410, "This meeting was cancelled");
    await expectError(await end(meeting.id), 409, "Meeting has been cancelled and cannot be ended");
    const page = await (await fetch(meeting.url)).text();
    expect(page).toContain('data-status="cancelled"');

    await waitFor(() => events(meeting.id, "meeting.cancelled").length === 1 && events(meeting.id, "participant.left").length === 1, 10_000, "cancel events");
    await holdStill(2_500, "a negative: past the grace period, no meeting.ended");
    expect(events(meeting.id, "meeting.cancelled")).toHaveLength(1);
    expect(events(meeting.id, "meeting.ended")).toHaveLength(0);
    expect(events(meeting.id, "meeting.cancelled")[0]!.data).toMatchObject({
      meetingId: meeting.id,
      title: "Cancelled",
      attendees: ["a@example.com"],
      cancelledAt: cancelled!.cancelledAt,
    });
  });

  it("every read of a cancelled meeting's records answers 410 Gone with the body a 200 would carry and the error", async () => {
    const meeting = await create({ title: "Gone but readable", attendees: ["a@example.com"] });
    const link = await client().POST("/meeting/{id}/links", { ...inPath(meeting.id), body: { email: "a@example.com" } });
    expect(link.response.status).toBe(201);
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: meeting.id, participant: mediaParticipant("Early bird") });
    const reads = async () => {
      const api = client();
      const anonymous = fixture.client();
      return {
        links: await api.GET("/meeting/{id}/links", inPath(meeting.id)),
        participants: await api.GET("/meeting/{id}/participants", inPath(meeting.id)),
        attendance: await api.GET("/meeting/{id}/attendance", inPath(meeting.id)),
        recordings: await api.GET("/meeting/{id}/recordings", inPath(meeting.id)),
        transcripts: await api.GET("/meeting/{id}/transcripts", inPath(meeting.id)),
        visitor: await anonymous.GET("/meeting/{id}/visitor", inPath(meeting.id)),
      };
    };
    const statuses = (answers: Record<string, { response: Response }>) =>
      Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, answer.response.status]));
    const before = await reads();
    expect(statuses(before)).toEqual({ links: 200, participants: 200, attendance: 200, recordings: 200, transcripts: 200, visitor: 200 });

    expect((await cancel(meeting.id)).response.status).toBe(200);
    const after = await reads();
    expect(statuses(after)).toEqual({ links: 410, participants: 410, attendance: 410, recordings: 410, transcripts: 410, visitor: 410 });
    const error = "Meeting was cancelled";
    expect(after.links.error).toEqual({ links: [expect.objectContaining({ linkId: link.data!.linkId, email: "a@example.com" })], error });
    expect(after.participants.error).toMatchObject({ participants: [{ name: "Early bird" }], nextPageToken: null, error });
    expect(after.attendance.error).toMatchObject({ status: "cancelled", error });
    expect((after.attendance.error as { people: { name: string; email: string | null }[] }).people.map((person) => person.email ?? person.name)).toEqual([
      "a@example.com",
      "Early bird",
    ]);
    expect(after.recordings.error).toEqual({ recordings: [], error });
    expect(after.transcripts.error).toEqual({ transcripts: [], error });
    expect(after.visitor.error).toEqual({ removed: false, error });
  });

  it("409 for an ended meeting, 404 for another organization's; nothing changes", async () => {
    const ended = await create({ title: "Over" });
    await end(ended.id);
    await expectError(await cancel(ended.id), 409, "Meeting has ended and cannot be cancelled");
    expect((await get(ended.id)).status).toBe("ended");
    const mine = await create({ title: "Not yours to cancel" });
    await expectError(await cancel(mine.id, other), 404, "Meeting not found");
    expect((await get(mine.id)).status).toBe("scheduled");
  });
});

describe("GET /api/v1/meeting", () => {
  it("lists the organization's meetings newest first, with cursor pagination and filters by status and start range", async () => {
    const lister = await createTenant(fixture.stack);
    const made: string[] = [];
    for (const [index, start] of ["2032-01-01T09:00:00Z", "2032-01-02T09:00:00Z", "2032-01-03T09:00:00Z", null].entries()) {
      const { data } = await post({ title: `M${index}`, start }, lister);
      made.push(data!.id);
    }
    await cancel(made[1]!, lister);
    const list = async (query: string) => {
      const { data, response } = await listQuery(query, lister);
      expect(response.status).toBe(200);
      return data!;
    };
    expect((await list("")).meetings.map((meeting) => meeting.id)).toEqual([...made].reverse());
    const first = await list("?pageSize=3");
    expect(first.meetings).toHaveLength(3);
    const second = await list(`?pageSize=3&pageToken=${encodeURIComponent(first.nextPageToken!)}`);
    expect([...first.meetings, ...second.meetings].map((meeting) => meeting.id)).toEqual([...made].reverse());
    expect(second.nextPageToken).toBeNull();
    expect((await list("?status=cancelled")).meetings.map((meeting) => meeting.id)).toEqual([made[1]]);
    expect((await list("?startFrom=2032-01-02T00:00:00Z&startBefore=2032-01-03T09:00:00Z")).meetings.map((meeting) => meeting.id)).toEqual([made[1]]);
    expect((await list("?startFrom=2032-01-02T00:00:00Z&status=scheduled")).meetings.map((meeting) => meeting.id)).toEqual([made[2]]);
    // Another organization sees none of them.
    expect((await listQuery("?pageSize=100", other)).data!.meetings.map((meeting) => meeting.id)).not.toEqual(expect.arrayContaining([made[0]]));
  });

  it.each([
    ["?status=done", "status must be one of scheduled, live, ended, cancelled"],
    ["?pageSize=0", "pageSize must be a number from 1 to 100"],
    ["?pageSize=101", "pageSize must be a number from 1 to 100"],
    ["?startFrom=yesterday", /^start_from must be an ISO 8601 date-time/],
    ["?pageToken=bm90LWEtdG9rZW4", "page_token is invalid"],
  ])("refuses %s with 400", async (query, message) => {
    await expectError(await listQuery(query), 400, message);
  });
});

describe("a Cal.com-style adapter: createMeeting → updateMeeting → deleteMeeting", () => {
  it("each step is stored and emitted as the scheduling tool expects", async () => {
    // createMeeting(event): title, start, end, attendees.
    const created = await create({ title: "30 min with Ada", start: "2033-02-01T10:00:00Z", end: "2033-02-01T10:30:00Z", attendees: ["ada@example.com"] });
    expect(created).toMatchObject({ status: "scheduled", start: "2033-02-01T10:00:00.000Z", end: "2033-02-01T10:30:00.000Z", attendees: ["ada@example.com"] });
    // updateMeeting(booking, event): a reschedule to another day, with a second attendee.
    const rescheduled = (
      await patch(created.id, {
        start: "2033-02-03T15:00:00Z",
        end: "2033-02-03T15:30:00Z",
        attendees: ["ada@example.com", "bob@example.com"],
      })
    ).data;
    expect(rescheduled).toMatchObject({
      id: created.id,
      url: created.url,
      start: "2033-02-03T15:00:00.000Z",
      end: "2033-02-03T15:30:00.000Z",
      attendees: ["ada@example.com", "bob@example.com"],
    });
    // deleteMeeting(uid): the booking was cancelled.
    expect((await cancel(created.id)).response.status).toBe(200);
    // Gone afterwards (410), with the cancelled meeting as the body.
    const gone = await client().GET("/meeting/{id}", inPath(created.id));
    expect(gone.response.status).toBe(410);
    expect(gone.error).toMatchObject({ status: "cancelled", start: "2033-02-03T15:00:00.000Z" });
    expect((await cancel(created.id)).response.status, "cancelling again is still 200 (idempotent)").toBe(200);

    await waitFor(() => events(created.id).length === 2, 10_000, "updated and cancelled delivered");
    expect(
      events(created.id)
        .map((event) => event.type)
        .sort(),
    ).toEqual(["meeting.cancelled", "meeting.updated"]);
    expect(events(created.id, "meeting.updated")[0]!.data.changedFields).toEqual(["start", "end", "attendees"]);
  });
});

describe("the OpenAPI document", () => {
  it("documents the new operations and the bodies they answer and emit", async () => {
    const document = await fetchOpenApiDocument(fixture.stack);
    expect(Object.keys(document.paths["/meeting"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(document.paths["/meeting/{id}"]).sort()).toEqual(["delete", "get", "patch"]);
    expect(document.paths["/meeting/{id}"].delete.security).toEqual([{ ApiKey: [] }, { OAuth2: ["meeting.delete"] }]);
    const schemas = document.components.schemas;
    const meeting = await create({ title: "Documented", start: "2034-01-01T09:00:00Z", duration: 15 });
    expectDocumentedShape(schemas.Meeting, meeting, "Meeting");
    const list = (await listQuery("?pageSize=1")).data!;
    expectDocumentedShape(schemas.MeetingList, list, "MeetingList");
    await patch(meeting.id, { title: "Documented again" });
    await cancel(meeting.id);
    await waitFor(() => events(meeting.id).length === 2, 10_000, "updated and cancelled delivered");
    for (const [type, name] of [
      ["meeting.updated", "MeetingUpdatedEvent"],
      ["meeting.cancelled", "MeetingCancelledEvent"],
    ] as const) {
      const payload = events(meeting.id, type)[0]!;
      expectDocumentedShape(schemas[name], payload, name);
      expectDocumentedShape(schemas[name].properties.data, payload.data, `${name}.data`);
    }
  });
});

describe("methods a path does not have", () => {
  it("answer 405 with Allow (from the OpenAPI document), before any credential check", async () => {
    const cases: [string, string, string][] = [
      ["PUT", "/meeting/AAAAAAAAAAAAAAAAAAAAAA", "DELETE, GET, PATCH, HEAD, OPTIONS"],
      ["PUT", "/meeting", "GET, POST, HEAD, OPTIONS"],
      ["GET", "/meeting/AAAAAAAAAAAAAAAAAAAAAA/join", "POST, OPTIONS"],
      ["DELETE", "/meeting/AAAAAAAAAAAAAAAAAAAAAA/end", "POST, OPTIONS"],
      // The OAuth server's paths too, though another service answers them.
      ["DELETE", "/oauth/token", "POST, OPTIONS"],
      ["PUT", "/oauth/authorize", "GET, HEAD, OPTIONS"],
    ];
    for (const [method, path, allow] of cases) {
      const response = await fetch(`${fixture.stack.gatewayUrl}/api/v1${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get("allow")?.split(", ").sort()).toEqual(allow.split(", ").sort());
      expect(((await response.json()) as { error: string }).error).toMatch(/^Method \w+ is not allowed here/);
    }
    // OPTIONS answers the same list, whichever router serves the path.
    for (const path of ["/session", "/meeting"]) {
      const options = await fetch(`${fixture.stack.gatewayUrl}/api/v1${path}`, { method: "OPTIONS" });
      expect(options.status).toBe(204);
      expect(options.headers.get("allow")).toBe(path === "/session" ? "POST, GET, DELETE, HEAD, OPTIONS" : "GET, POST, HEAD, OPTIONS");
    }
    // An unknown path is still 404 (no client knows it: on the wire as it is).
    expect((await callApi(apiBase(fixture.stack), "GET", "/no-such-thing", { key: tenant.apiKey })).status).toBe(404);
  });
});
