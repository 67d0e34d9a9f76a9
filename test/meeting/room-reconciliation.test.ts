import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMediaWebhookProxy } from "../support/media-webhook-proxy.ts";
import { useResource } from "../support/use-resource.ts";
import { launchChromium } from "../support/chromium.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { succeeded, useStack } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";
import { subscribeReceiver, useWebhookReceiver } from "../support/webhook-fixtures.ts";
import { holdStill } from "../support/hold-still.ts";

// Presence must not depend on every webhook arriving: the meeting service compares what it
// recorded with LiveKit's room service at start and every ROOM_RECONCILE_INTERVAL_MS.
const GRACE_SECONDS = 3;
let tenant: Tenant;
let browser: Browser;

// The proxy first: the stack's media server is pointed at it.
const proxy = useResource("the media webhook proxy", startMediaWebhookProxy, (started) => started.close());
const fixture = useStack({
  media: true,
  mediaWebhookTarget: (listener) => {
    proxy().target = listener;
    return proxy().url;
  },
  env: { MEETING_EMPTY_GRACE_SECONDS: String(GRACE_SECONDS), ROOM_RECONCILE_INTERVAL_MS: "2000", WEBHOOK_POLL_INTERVAL_MS: "200" },
});
const receiver = useWebhookReceiver();

beforeAll(async () => {
  browser = await launchChromium({ fakeMedia: true });
  tenant = await createTenant(fixture.stack);
  await subscribeReceiver(fixture.stack, receiver, tenant.apiKey, "/events", { events: ["meeting.ended", "participant.left"] });
});
afterAll(async () => {
  await browser?.close();
});

const client = () => fixture.client(tenant.apiKey);
const statusOf = async (id: string) => (await succeeded(client().GET("/meeting/{id}", { params: { path: { id } } }))).status;
const endedEvents = (meetingId: string) =>
  receiver.on("/events").filter((request) => request.payload?.type === "meeting.ended" && request.payload.data.meetingId === meetingId);

describe("reconciliation with the media server", () => {
  it("the meeting service restarted while people are in a meeting, and a webhook lost: the meeting still ends exactly once", { timeout: 150_000 }, async () => {
    const meeting = await succeeded(client().POST("/meeting", { body: { title: "Restart" } }));
    const alice = await joinMeeting(browser, meeting.url, "Alice");
    const bob = await joinMeeting(browser, meeting.url, "Bob");
    await waitFor(
      async () =>
        (await fixture.stack.query("SELECT count(*)::int AS n FROM meeting.room_participants WHERE meeting_id = $1 AND left_at IS NULL", [meeting.id])).rows[0]!
          .n === 2,
      20_000,
      "both recorded as present",
    );

    // Bob leaves while the meeting service is down: LiveKit's notification finds nobody.
    await fixture.stack.kill("meeting");
    await bob.close();
    // A fixed outage, not a marker: LiveKit notices the closed page on its own schedule and need not
    // notify within it (waiting for Bob's participant_left at the proxy timed out after 30 s in a
    // trial); either way the leave is recorded by reconciliation after the restart.
    await holdStill(3_000, "the lost leave's webhook must not arrive before the restart");
    await fixture.stack.start("meeting");
    // Alice's leave is lost on the way, and so is the room's closing, which would otherwise
    // tell the same thing 20 s later.
    proxy().drop((webhook) => (webhook.event === "participant_left" && webhook.participantName === "Alice") || webhook.event === "room_finished");
    await alice.close();

    await waitFor(() => endedEvents(meeting.id).length === 1, 60_000, "meeting.ended after reconciliation and the grace period");
    // Alice's participant_left may reach the proxy after the end: LiveKit sends a room's webhooks
    // one at a time, and Bob's, refused while the meeting service was down, is retried with backoff
    // (1, 2, 4, 8 s) ahead of it. It is dropped whenever it comes; that it came shows it was sent.
    await waitFor(() => proxy().dropped.some((webhook) => webhook.participantName === "Alice"), 30_000, "Alice's participant_left dropped at the proxy");
    expect(await statusOf(meeting.id)).toBe("ended");
    const ended = endedEvents(meeting.id)[0]!.payload!.data;
    expect((ended.participants as { displayName: string; leftAt: string | null }[]).map((visit) => [visit.displayName, visit.leftAt !== null]).sort()).toEqual([
      ["Alice", true],
      ["Bob", true],
    ]);
    // Later webhooks (the room closing) and later reconciliations change nothing: a negative, so
    // three reconciliation intervals in which a second meeting.ended would be sent.
    await holdStill(6_000, "a negative: three reconciliation intervals in which a second meeting.ended would be sent");
    expect(endedEvents(meeting.id)).toHaveLength(1);
  });
});
