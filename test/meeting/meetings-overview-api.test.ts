import { beforeAll, describe, expect, it } from "vitest";
import { mediaParticipant, sendMediaWebhook } from "../support/media-webhooks.ts";
import { apiBase, callApi, readResponse } from "../support/rest-client.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { useStack } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";
import { subscribeReceiver, useWebhookReceiver } from "../support/webhook-fixtures.ts";

// What the dashboard's Meetings section reads, over REST (every answer is checked against the
// OpenAPI document): the list's search and per-meeting activity, a meeting's attendance, the
// organization's usage per UTC day, and the delivery log narrowed to one meeting. Each is the
// caller's organization's only. Visits come as the media server reports them (signed webhooks).

const fixture = useStack({ env: { WEBHOOK_POLL_INTERVAL_MS: "200", MEETING_EMPTY_GRACE_SECONDS: "600" } });
const receiver = useWebhookReceiver();
let tenant: Tenant;
let other: Tenant;
let webhookId: string;

const api = (method: string, path: string, body?: unknown, as: Tenant = tenant) =>
  callApi(apiBase(fixture.stack), method, path, { key: as.apiKey, body }).then(readResponse);

async function create(body: Record<string, unknown>, as: Tenant = tenant): Promise<string> {
  const created = await api("POST", "/meeting", body, as);
  expect(created.status).toBe(200);
  return created.body.id as string;
}

const titles = async (query: string, as: Tenant = tenant) => {
  const listed = await api("GET", `/meeting?${query}`, undefined, as);
  expect(listed.status).toBe(200);
  return (listed.body.meetings as { title: string }[]).map((meeting) => meeting.title);
};

const MINUTE = 60_000;
const utcMidnight = (ms: number) => Math.floor(ms / 86_400_000) * 86_400_000;

beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(fixture.stack), createTenant(fixture.stack)]);
  ({ webhookId } = await subscribeReceiver(fixture.stack, receiver, tenant.apiKey, "/events", { events: ["meeting.started", "meeting.ended"] }));
});

describe("GET /meeting: search and activity", () => {
  it("search finds text in titles and invited addresses, ignoring case, with % and _ taken literally, in the caller's organization only", async () => {
    await create({ title: "Weekly 100% review", attendees: ["dora_k@example.com"] });
    await create({ title: "Design sync", hosts: ["erin@example.com"] });
    await create({ title: "Weekly planning" });
    await create({ title: "Weekly secret", attendees: ["erin@example.com"] }, other);

    expect(await titles("search=weekly")).toEqual(["Weekly planning", "Weekly 100% review"]);
    expect(await titles("search=ERIN%40EXAMPLE")).toEqual(["Design sync"]);
    expect(await titles(`search=${encodeURIComponent("100%")}`)).toEqual(["Weekly 100% review"]);
    expect(await titles(`search=${encodeURIComponent("a_k")}`)).toEqual(["Weekly 100% review"]);
    expect(await titles(`search=${encodeURIComponent("0_%")}`)).toEqual([]);
    expect(await titles("search=%20%20")).toEqual(["Weekly planning", "Design sync", "Weekly 100% review"]);
    expect(await titles("search=weekly&pageSize=1")).toEqual(["Weekly planning"]);
    const refused = await api("GET", `/meeting?search=${"x".repeat(201)}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("search must be at most 200 characters");
  });

  it("each listed meeting says how many people came (each guest entry once) and how many recordings it has", async () => {
    const id = await create({ title: "Counted" });
    const [ada, bob] = [mediaParticipant("Ada"), mediaParticipant("Bob")];
    for (const participant of [ada, bob]) expect(await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant })).toBe(200);
    const listed = (await api("GET", "/meeting?search=Counted")).body.meetings[0];
    expect(listed).toMatchObject({ title: "Counted", status: "live", joinedCount: 2, recordingCount: 0 });
  });
});

describe("GET /meeting/{id}/attendance", () => {
  it("lists the invited whether they came or not, then guests, with visits, total time and presence; no-shows once the meeting ended", async () => {
    const id = await create({
      title: "Attendance",
      start: new Date(Date.now() + 60 * MINUTE).toISOString(),
      attendees: ["ada@example.com", "carol@example.com"],
    });
    const guest = mediaParticipant("Walk-in", Date.now() - 3 * MINUTE);
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant: guest });
    await sendMediaWebhook(fixture.stack, { event: "participant_left", meetingId: id, participant: guest, createdAtMs: Date.now() - MINUTE });
    const again = mediaParticipant("Walk-in");
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant: again });

    const live = await api("GET", `/meeting/${id}/attendance`);
    expect(live.status).toBe(200);
    expect(live.body.status).toBe("live");
    expect(
      live.body.people.map((person: { email: string | null; name: string; invited: boolean; present: boolean; noShow: boolean }) => [
        person.email,
        person.name,
        person.invited,
        person.present,
        person.noShow,
      ]),
    ).toEqual([
      ["ada@example.com", "", true, false, false],
      ["carol@example.com", "", true, false, false],
      [null, "Walk-in", false, false, false],
      [null, "Walk-in", false, true, false],
    ]);
    const first = live.body.people[2];
    expect(first.visits).toHaveLength(1);
    expect(first.totalSeconds).toBeGreaterThanOrEqual(119);
    expect(first.totalSeconds).toBeLessThanOrEqual(121);

    expect((await api("POST", `/meeting/${id}/end`)).status).toBe(200);
    const ended = (await api("GET", `/meeting/${id}/attendance`)).body;
    expect(ended.status).toBe("ended");
    expect(ended.people.map((person: { noShow: boolean; present: boolean }) => [person.noShow, person.present])).toEqual([
      [true, false],
      [true, false],
      [false, false],
      [false, false],
    ]);
  });

  it("another organization's meeting, or no meeting, is not found", async () => {
    const foreign = await create({ title: "Theirs" }, other);
    for (const id of [foreign, "AAAAAAAAAAAAAAAAAAAAAA", "not-an-id"]) {
      const answer = await api("GET", `/meeting/${id}/attendance`);
      expect(answer.status).toBe(404);
      expect(answer.body.error).toBe("Meeting not found");
    }
  });
});

describe("GET /usage", () => {
  it("counts each UTC day's meetings and the part of each visit in it, for the caller's organization only", async () => {
    const now = Date.now();
    // A visit that began 5 minutes before today's UTC midnight (or 20 minutes ago, early in a UTC day) and is still open.
    const joinedAtMs = now - utcMidnight(now) > 10 * MINUTE ? utcMidnight(now) - 5 * MINUTE : now - 20 * MINUTE;
    const [id, foreign] = await Promise.all([create({ title: "Across midnight" }), create({ title: "Other's usage" }, other)]);
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: id, participant: mediaParticipant("Night owl", joinedAtMs) });
    await sendMediaWebhook(fixture.stack, { event: "participant_joined", meetingId: foreign, participant: mediaParticipant("Not counted", now - 60 * MINUTE) });

    const usage = await api("GET", "/usage?days=3");
    expect(usage.status).toBe(200);
    expect(usage.body.days.map((day: { date: string }) => day.date)).toEqual(
      [2, 1, 0].map((back) => new Date(utcMidnight(now) - back * 86_400_000).toISOString().slice(0, 10)),
    );
    const [, yesterday, today] = usage.body.days as { meetings: number; participantMinutes: number }[];
    const asked = Date.now();
    // Today: this visit, the one still open in "Counted" (a minute or so), and the attendance test's.
    expect(today!.meetings).toBeGreaterThanOrEqual(1);
    if (joinedAtMs < utcMidnight(now)) {
      expect(yesterday).toMatchObject({ meetings: 1, participantMinutes: 5 });
    }
    const sinceMidnight = (asked - Math.max(joinedAtMs, utcMidnight(now))) / MINUTE;
    expect(today!.participantMinutes).toBeGreaterThanOrEqual(Math.floor(sinceMidnight * 10) / 10);
    expect(usage.body).toMatchObject({ recordingMinutes: 0, storageBytes: 0, recordingsStored: 0 });

    // The other organization sees only its own hour.
    const theirs = (await api("GET", "/usage?days=1", undefined, other)).body;
    expect(theirs.days).toHaveLength(1);
    expect(theirs.days[0].meetings).toBe(1);
    expect(theirs.days[0].participantMinutes).toBeLessThanOrEqual(61);
    expect(theirs.days[0].participantMinutes).toBeGreaterThanOrEqual(Math.min(60, (asked - utcMidnight(now)) / MINUTE) - 0.2);

    expect((await api("GET", "/usage")).body.days).toHaveLength(30);
    for (const days of ["0", "91", "1.5", "x"]) expect((await api("GET", `/usage?days=${days}`)).status).toBe(400);
  });
});

describe("GET /webhook/{id}/deliveries?meetingId=", () => {
  it("lists only the deliveries of events about that meeting", async () => {
    const [first, second] = [await create({ title: "First ended" }), await create({ title: "Second ended" })];
    for (const id of [first, second]) expect((await api("POST", `/meeting/${id}/end`)).status).toBe(200);
    const only = async (meetingId: string) =>
      (await api("GET", `/webhook/${webhookId}/deliveries?meetingId=${meetingId}`)).body.deliveries as { eventType: string }[];
    await waitFor(async () => (await only(first)).length === 1 && (await only(second)).length === 1, 10_000, "one meeting.ended delivery each");
    expect((await only(first)).map((delivery) => delivery.eventType)).toEqual(["meeting.ended"]);
    expect(await only("AAAAAAAAAAAAAAAAAAAAAA")).toEqual([]);
  });
});
