import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createPool, type Pool } from "@svc/platform/db";
import { claimRecording, markCapturing } from "../../services/meeting/src/db/recordings.ts";
import { collectPageProblems, launchChromium } from "../support/chromium.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { apiBase, callApi, readResponse } from "../support/rest-client.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { useResource } from "../support/use-resource.ts";
import { useStack } from "../support/use-stack.ts";

/**
 * The room says when the meeting is being transcribed (docs/transcription.md, "Where people see
 * transcripts"), in real Chromium: a recording that captures while the meeting's transcription is
 * on writes each person's audio for the transcript, so the indicator reads "Recording ·
 * Transcribing" and the room announces it; with transcription off it reads "Recording" only. The
 * recording is put in the capturing state by the meeting service's own recording functions (the
 * state the recorder's report leaves it in; test/recording runs the recorder itself), and the
 * watchdog, which would ask LiveKit Egress about it, does not run during the file.
 * Screenshots at desktop and phone width go to SHOTS.
 */

const SHOTS = process.env.TRANSCRIPTION_INDICATOR_SHOTS_DIR ?? "/tmp/transcription-indicator-shots";

const fixture = useStack({
  media: true,
  env: { RECORDING_WATCH_INTERVAL_MS: "600000", RECORDING_LOST_AFTER_SECONDS: "600", MEETING_EMPTY_GRACE_SECONDS: "600" },
});
const meetingPool = useResource(
  "the meeting schema's pool",
  async (): Promise<Pool> =>
    createPool({ databaseUrl: fixture.stack.databaseUrl, schema: "meeting", logger: createLogger("transcription-indicator-test", "silent"), max: 2 }),
  (pool) => pool.end(),
);

let tenant: Tenant;
let browser: Browser;
const problems: string[] = [];

const api = (method: string, path: string, body?: unknown) => callApi(apiBase(fixture.stack), method, path, { key: tenant.apiKey, body }).then(readResponse);

/** A meeting whose recording is capturing, as the recorder's report leaves it. */
async function meetingBeingRecorded(transcription: "on" | "off"): Promise<{ id: string; url: string }> {
  const created = await api("POST", "/meeting", { title: `Transcription ${transcription}`, recording: "manual", transcription });
  expect(created.status).toBe(200);
  const id = randomUUID();
  const claimed = await claimRecording(meetingPool(), {
    id,
    meetingId: created.body.id,
    orgId: tenant.orgId,
    layout: "grid",
    startedBy: "api",
    storage: "filesystem",
    objectKey: `${id}.mp4`,
  });
  expect(claimed).toBeDefined();
  expect(await markCapturing(meetingPool(), id, new Date())).toBeDefined();
  return created.body;
}

async function shots(page: Page, name: string) {
  await page.screenshot({ path: `${SHOTS}/${name}-desktop.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${SHOTS}/${name}-390.png` });
  await page.setViewportSize({ width: 1280, height: 800 });
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  tenant = await createTenant(fixture.stack);
  browser = await launchChromium({ fakeMedia: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("the room's transcription indicator", () => {
  it("a recording of a transcribed meeting: the room shows and announces that it is being transcribed", { timeout: 120_000 }, async () => {
    const meeting = await meetingBeingRecorded("on");
    expect((await api("GET", `/meeting/${meeting.id}`)).body.transcription).toBe("on");
    // Told before joining, beside the recording notice.
    expect(await (await fetch(meeting.url)).text()).toContain("Its recordings are transcribed: what each person says is written down with their name.");
    const joinPage = await browser.newPage();
    await joinPage.goto(meeting.url);
    await expect.poll(() => joinPage.locator("#recording-notice").textContent()).toContain("Its recordings are transcribed");
    await shots(joinPage, "join-page-transcribed");
    await joinPage.close();
    const page = await joinMeeting(browser, meeting.url, "Ada");
    collectPageProblems(page, problems);
    const indicator = page.locator(".recording-indicator");
    await page
      .getByRole("status")
      .filter({ hasText: /^Recording · Transcribing$/ })
      .waitFor({ timeout: 20_000 });
    expect(await indicator.getAttribute("data-transcribed")).toBe("true");
    await expect.poll(() => page.locator(".recording-notice").textContent()).toBe("This meeting is now being recorded and transcribed.");
    await shots(page, "room-transcribing");
    await page.close();
    expect(problems).toEqual([]);
  });

  it("a recording of a meeting whose transcription is off: the room says Recording, not Transcribing", { timeout: 120_000 }, async () => {
    const meeting = await meetingBeingRecorded("off");
    const joinPage = await (await fetch(meeting.url)).text();
    expect(joinPage).toContain('id="recording-notice"');
    expect(joinPage).not.toContain("Its recordings are transcribed");
    const page = await joinMeeting(browser, meeting.url, "Bob");
    await page
      .getByRole("status")
      .filter({ hasText: /^Recording$/ })
      .waitFor({ timeout: 20_000 });
    expect(await page.locator(".recording-indicator").getAttribute("data-transcribed")).toBe("false");
    await expect.poll(() => page.locator(".recording-notice").textContent()).toBe("This meeting is now being recorded.");
    await page.close();
  });
});
