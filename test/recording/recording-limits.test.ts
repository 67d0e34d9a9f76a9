import { existsSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { holdStill } from "../support/hold-still.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { recorderActive } from "../support/recorder-active.ts";
import { apiBase, callApi, readResponse } from "../support/rest-client.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";

// What limits recordings, end to end on a stack with LiveKit Egress: retention
// (RECORDING_RETENTION_DAYS: a finished recording is deleted with its file once it ended longer ago
// than that; here "days" is 20 seconds' worth and the sweep looks every second), and the recorder's
// capacity (the test stack's egress takes one room recording at a time: scripts/egress-server.ts).
const RETENTION_SECONDS = 20;

let browser: Browser;
let tenant: Tenant;

const fixture = useStack({
  recording: true,
  env: {
    LOG_LEVEL: "info",
    RECORDING_RETENTION_DAYS: String(RETENTION_SECONDS / 86_400),
    RECORDING_RETENTION_CHECK_INTERVAL_MS: "1000",
    RECORDING_LINK_SECRET: "recording-retention-test-secret-of-32-characters-or-more",
  },
});

beforeAll(async () => {
  browser = await launchChromium({ fakeMedia: true });
  tenant = await createTenant(fixture.stack);
}, 900_000);

afterAll(async () => {
  await browser?.close();
});

const api = (method: string, route: string, body?: unknown) =>
  callApi(apiBase(fixture.stack), method, route, { key: tenant.apiKey, ...(body === undefined ? {} : { body }) }).then(readResponse);

// The page is in the room; the meeting is live once the media server's participant_joined has
// reached the meeting service (seconds later under load: run 16 asked before and got 409), and
// only a live meeting is recorded.
const untilLive = (meetingId: string) => waitFor(async () => (await api("GET", `/meeting/${meetingId}`)).body.status === "live", 30_000, "the meeting is live");

describe("recording limits", () => {
  it("keeps a ready recording until RECORDING_RETENTION_DAYS after it ended, then deletes it and its file", { timeout: 300_000 }, async () => {
    const meeting = await api("POST", "/meeting", { title: "Kept for a while", recording: "manual" });
    expect(meeting.status).toBe(200);
    const page = await joinMeeting(browser, meeting.body.url, "Ada");
    await untilLive(meeting.body.id);
    const started = await api("POST", `/meeting/${meeting.body.id}/recordings`, { layout: "audio" });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const id = started.body.id as string;
    await recorderActive(fixture.stack, id);
    await holdStill(3_000, "a few seconds of audio");
    expect((await api("POST", `/recordings/${id}/stop`)).status).toBe(200);
    await waitFor(async () => (await api("GET", `/recordings/${id}`)).body.status === "ready", 120_000, "the recording is ready");
    const readyAt = Date.now();
    const file = path.join(fixture.stack.recording!.dir, `${id}.mp4`);
    expect(existsSync(file)).toBe(true);
    await page.context().close();

    // Within the retention it stays, file and all.
    await holdStill(5_000, "well inside the retention");
    expect((await api("GET", `/recordings/${id}`)).status).toBe(200);
    expect(existsSync(file)).toBe(true);

    // After it, the sweep deletes both.
    await waitFor(async () => (await api("GET", `/recordings/${id}`)).status === 404, 60_000, "retention deletes the recording");
    expect(Date.now() - readyAt).toBeGreaterThanOrEqual((RETENTION_SECONDS - 10) * 1_000);
    expect(existsSync(file)).toBe(false);
    expect(fixture.stack.logs("meeting")).toContain("retention: recordings past RECORDING_RETENTION_DAYS deleted with their files");
  });

  it(
    "a start the recorder has no capacity for is a prompt 503 with Retry-After, not a hang; it starts once capacity is back",
    { timeout: 300_000 },
    async () => {
      const meeting = async (title: string) => {
        const created = await api("POST", "/meeting", { title, recording: "manual" });
        expect(created.status).toBe(200);
        await joinMeeting(browser, created.body.url, "Ada");
        await untilLive(created.body.id);
        return created.body.id as string;
      };
      const [first, second] = [await meeting("Recorded first"), await meeting("Recorded second")];
      const holding = await api("POST", `/meeting/${first}/recordings`, { layout: "grid" });
      expect(holding.status, JSON.stringify(holding.body)).toBe(201);
      await recorderActive(fixture.stack, holding.body.id);

      const askedAt = Date.now();
      const refused = await api("POST", `/meeting/${second}/recordings`, { layout: "grid" });
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(Date.now() - askedAt).toBeLessThan(20_000);
      expect(refused.body.error).toMatch(/No recorder has capacity for this recording now/);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // Nothing is left claimed: the meeting has no recording, and may try again.
      expect((await api("GET", `/meeting/${second}/recordings`)).body.recordings).toEqual([]);

      expect((await api("POST", `/recordings/${holding.body.id}/stop`)).status).toBe(200);
      await waitFor(async () => (await api("GET", `/recordings/${holding.body.id}`)).body.status === "ready", 120_000, "the first recording is ready");
      let retried: Awaited<ReturnType<typeof api>> | undefined;
      await waitFor(
        async () => {
          retried = await api("POST", `/meeting/${second}/recordings`, { layout: "grid" });
          return retried.status === 201;
        },
        90_000,
        "the second meeting records once the recorder is free",
      );
      await recorderActive(fixture.stack, retried!.body.id);
      expect((await api("POST", `/recordings/${retried!.body.id}/stop`)).status).toBe(200);
    },
  );
});
