import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, launchKillableChromium } from "../support/chromium.ts";
import { inboundMedia, joinMeeting, remoteTiles, screenshotDir } from "../support/meeting-room-browser.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { succeeded, useStack } from "../support/use-stack.ts";
import { waitFor, waitUntil } from "../support/wait.ts";
import { subscribeReceiver, useWebhookReceiver } from "../support/webhook-fixtures.ts";
import { holdStill } from "../support/hold-still.ts";

// Real meetings: Debian Chromium with a fake camera and microphone joins from the join URL,
// through our join grants, to a real LiveKit; presence comes back from LiveKit's signed webhooks
// and leaves as our webhook events at a receiver verifying with `standardwebhooks`.
// Long enough for a rejoin's grant on a loaded machine: the rejoin below waits for the leave's
// webhook delivery, then loads the page and presses Join (more than 4 s under load 19-26). Once
// granted, the rejoiner holds the meeting open until they enter (meetings-due-to-end.test.ts).
const GRACE_SECONDS = 10;
const fixture = useStack({ media: true, env: { MEETING_EMPTY_GRACE_SECONDS: String(GRACE_SECONDS), WEBHOOK_POLL_INTERVAL_MS: "200" } });
const receiver = useWebhookReceiver();
let tenant: Tenant;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium({ fakeMedia: true });
  tenant = await createTenant(fixture.stack);
  await subscribeReceiver(fixture.stack, receiver, tenant.apiKey, "/events", {
    events: ["meeting.started", "meeting.ended", "participant.joined", "participant.left"],
  });
  mkdirSync(screenshotDir, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});

const client = () => fixture.client(tenant.apiKey);
const createMeeting = (title: string) => succeeded(client().POST("/meeting", { body: { title } }));
const statusOf = async (id: string) => (await succeeded(client().GET("/meeting/{id}", { params: { path: { id } } }))).status;
const eventsOf = (meetingId: string, type: string) =>
  receiver.on("/events").filter((request) => !request.verificationError && request.payload?.type === type && request.payload.data.meetingId === meetingId);
const participantNamesOf = (meetingId: string, type: string) =>
  eventsOf(meetingId, type)
    .map((request) => (request.payload!.data.participant as { displayName: string }).displayName)
    .sort();

/** Every page decodes video from each other person and receives audio, measured twice to see it flowing. */
async function expectEveryoneSeesAndHearsEveryone(pages: Page[]) {
  const others = pages.length - 1;
  let seen = "";
  const flowing = async () => {
    const received = await Promise.all(pages.map(inboundMedia));
    seen = received
      .map((media, index) => `page ${index}: video frames ${JSON.stringify(media.videoFramesByTrack)}, audio packets ${media.audioPackets}`)
      .join("; ");
    return received.every((media) => media.videoFramesByTrack.filter((frames) => frames > 0).length >= others && media.audioPackets > 0);
  };
  // Generous: a browser in a process of its own starts its media slowly when the other files
  // compile production trees beside it (load 36 on two cores, run 15); what each page received
  // is in the message should it still not flow.
  if (!(await waitUntil(flowing, 60_000, 250))) throw new Error(`not every page decodes every other person's video and receives audio after 60 s: ${seen}`);
  const before = await Promise.all(pages.map(inboundMedia));
  await holdStill(2_000, "media keeps flowing: counters compared across a fixed interval (the measurement itself)");
  const after = await Promise.all(pages.map(inboundMedia));
  after.forEach((media, index) => {
    const sum = (frames: number[]) => frames.reduce((total, value) => total + value, 0);
    expect(sum(media.videoFramesByTrack), `page ${index} keeps decoding video`).toBeGreaterThan(sum(before[index]!.videoFramesByTrack));
    expect(media.audioPackets, `page ${index} keeps receiving audio`).toBeGreaterThan(before[index]!.audioPackets);
  });
}

describe("a meeting held in real browsers", () => {
  it(
    "two, then three people meet; one leaves and the others drop them; the last leaves and the meeting ends once after the grace period",
    { timeout: 180_000 },
    async () => {
      const meeting = await createMeeting("Three people");
      const alice = await joinMeeting(browser, meeting.url, "Alice");
      const bob = await joinMeeting(browser, meeting.url, "Bob");
      await expectEveryoneSeesAndHearsEveryone([alice, bob]);
      expect(await statusOf(meeting.id)).toBe("live");

      const carol = await joinMeeting(browser, meeting.url, "Carol");
      await expectEveryoneSeesAndHearsEveryone([alice, bob, carol]);
      await holdStill(8_000, "hold the call past 20 s: a client/server mismatch shows as a renegotiation failure at 15 s");
      await expectEveryoneSeesAndHearsEveryone([alice, bob, carol]);
      for (const page of [alice, bob, carol]) await expect.poll(() => remoteTiles(page).count()).toBe(2);
      await alice.screenshot({ path: path.join(screenshotDir, "three-person-room.png") });

      await bob.getByRole("button", { name: "Leave" }).click();
      for (const page of [alice, carol]) await expect.poll(() => remoteTiles(page).count(), { timeout: 10_000 }).toBe(1);
      await waitFor(() => participantNamesOf(meeting.id, "participant.left").includes("Bob"), 15_000, "participant.left for Bob");

      await carol.close();
      await alice.getByRole("button", { name: "Leave" }).click();
      await waitFor(() => eventsOf(meeting.id, "meeting.ended").length === 1, 30_000, "meeting.ended after the grace period");
      expect(await statusOf(meeting.id)).toBe("ended");
      await holdStill(2_000, "a negative (no second meeting.ended): time for a duplicate to be delivered");
      expect(eventsOf(meeting.id, "meeting.ended")).toHaveLength(1);
      expect(eventsOf(meeting.id, "meeting.started")).toHaveLength(1);
      expect(participantNamesOf(meeting.id, "participant.joined")).toEqual(["Alice", "Bob", "Carol"]);
      expect(participantNamesOf(meeting.id, "participant.left")).toEqual(["Alice", "Bob", "Carol"]);
      const ended = eventsOf(meeting.id, "meeting.ended")[0]!.payload!.data;
      expect(ended.reason).toBe("empty");
      expect((ended.participants as { displayName: string }[]).map((visit) => visit.displayName).sort()).toEqual(["Alice", "Bob", "Carol"]);
      // The room page of an ended meeting says so and offers no join.
      const late = await browser.newPage();
      await late.goto(meeting.url);
      await expect.poll(() => late.getByText(/meeting has ended/i).count()).toBeGreaterThan(0);
      await late.close();
    },
  );

  it("a rejoin within the grace period keeps the meeting going: no meeting.ended", { timeout: 120_000 }, async () => {
    const meeting = await createMeeting("Rejoin");
    const dana = await joinMeeting(browser, meeting.url, "Dana");
    await waitFor(async () => (await statusOf(meeting.id)) === "live", 15_000, "live");
    await dana.getByRole("button", { name: "Leave" }).click();
    await waitFor(() => participantNamesOf(meeting.id, "participant.left").length === 1, 15_000, "participant.left");
    const again = await joinMeeting(browser, meeting.url, "Dana");
    await holdStill(GRACE_SECONDS * 1_000 + 3_000, "a negative (the meeting does not end): past the grace period in which it would");
    expect(await statusOf(meeting.id)).toBe("live");
    expect(eventsOf(meeting.id, "meeting.ended")).toHaveLength(0);
    await again.getByRole("button", { name: "Leave" }).click();
    await waitFor(() => eventsOf(meeting.id, "meeting.ended").length === 1, 30_000, "meeting.ended");
  });

  it("a participant whose browser is killed (no goodbye) is removed, and the lifecycle completes", { timeout: 150_000 }, async () => {
    const meeting = await createMeeting("Crash");
    const other = await launchKillableChromium({ fakeMedia: true });
    const victim = await joinMeeting(other.browser, meeting.url, "Victor");
    const erin = await joinMeeting(browser, meeting.url, "Erin");
    await expectEveryoneSeesAndHearsEveryone([victim, erin]);
    other.kill();
    // LiveKit notices the silent peer after its ICE timeout (about 20 s).
    await waitFor(() => participantNamesOf(meeting.id, "participant.left").includes("Victor"), 60_000, "participant.left for the killed browser");
    await expect.poll(() => remoteTiles(erin).count(), { timeout: 10_000 }).toBe(0);
    await erin.getByRole("button", { name: "Leave" }).click();
    await waitFor(() => eventsOf(meeting.id, "meeting.ended").length === 1, 30_000, "meeting.ended");
    expect(await statusOf(meeting.id)).toBe("ended");
  });

  it("ending a meeting through the API disconnects everyone in the room", { timeout: 90_000 }, async () => {
    const meeting = await createMeeting("Ended by the organizer");
    const frank = await joinMeeting(browser, meeting.url, "Frank");
    await waitFor(async () => (await statusOf(meeting.id)) === "live", 15_000, "live");
    expect((await client().POST("/meeting/{id}/end", { params: { path: { id: meeting.id } } })).response.status).toBe(200);
    await expect.poll(() => frank.getByText(/meeting has ended/i).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await waitFor(() => eventsOf(meeting.id, "meeting.ended").length === 1, 15_000, "meeting.ended");
    expect(eventsOf(meeting.id, "meeting.ended")[0]!.payload!.data.reason).toBe("ended_by_api");
  });
});
