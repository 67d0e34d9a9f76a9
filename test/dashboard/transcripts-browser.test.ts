import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { WebVTTParser } from "webvtt-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { transcriptionFailureMessages } from "@svc/platform/contract";
import { createPool, type Pool } from "@svc/platform/db";
import { completePiece, createTranscript, failPiece, leaseJob, type TranscribedSegment } from "../../services/meeting/src/db/transcription-jobs.ts";
import { transcriptEvents } from "../../services/meeting/src/meeting-events.ts";
import { collectPageProblems, launchChromium } from "../support/chromium.ts";
import { apiBase, callApi, readResponse } from "../support/rest-client.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { useResource } from "../support/use-resource.ts";
import { useStack } from "../support/use-stack.ts";
import { openSession } from "./support/dashboard-session.ts";

/**
 * The dashboard's transcripts (docs/transcription.md, "Where people see transcripts") in real
 * Chromium: beside a meeting's recordings, each transcript with its state (a failed one with the
 * API's reason), a reader (speaker, time, text) whose search keeps and highlights the passages
 * that hold the words, and WebVTT/JSON downloads through the API's signed links. The transcripts
 * are made by the meeting service's own job functions, as the worker stores them (leased jobs
 * whose pieces complete or fail), without the speech model: the model's text is
 * test/transcription's subject. Screenshots at desktop and phone width go to SHOTS.
 */

const SHOTS = process.env.DASHBOARD_TRANSCRIPTS_SHOTS_DIR ?? "/tmp/dash-transcripts-shots";
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

const fixture = useStack({ env: { RECORDING_LINK_SECRET: "dashboard-transcripts-test-secret-with-32-characters" } });
const meetingPool = useResource(
  "the meeting schema's pool",
  async (): Promise<Pool> =>
    createPool({ databaseUrl: fixture.stack.databaseUrl, schema: "meeting", logger: createLogger("dashboard-transcripts-test", "silent"), max: 2 }),
  (pool) => pool.end(),
);

let admin: Tenant;
let other: Tenant;
let browser: Browser;
let page: Page;
let meetingId: string;
const problems: string[] = [];

/** What each person said, in seconds of their own track; Bob's track starts 5 s into the meeting. */
const SAID = {
  ada: [
    { start: 2, end: 4.5, text: "The birch canoe slid on the smooth planks." },
    { start: 14, end: 16.5, text: "Glue the sheet to the dark blue background." },
  ],
  bob: [
    { start: 2, end: 4, text: "It's easy to tell the depth of a well." },
    { start: 16, end: 18.5, text: "These days a chicken leg is a rare dish." },
  ],
};
const BOB_OFFSET_MS = 5_000;

const asPiece = (said: { start: number; end: number; text: string }[]): TranscribedSegment[] => said.map((segment) => ({ ...segment, words: [] }));

const api = (method: string, path: string, body?: unknown, key = admin.apiKey) =>
  callApi(apiBase(fixture.stack), method, path, { key, body }).then(readResponse);

/** A transcript whose jobs are leased and stored as the worker does it: `ready` (both pieces stored), `failed` (a final failure) or left `processing`. */
async function makeTranscript(outcome: "ready" | "failed" | "processing"): Promise<string> {
  const pool = meetingPool();
  const transcriptId = await createTranscript(pool, {
    meetingId,
    orgId: admin.orgId,
    sources: [
      { storage: "filesystem", objectKey: "ada.ogg", offsetMs: 0, speaker: { displayName: "Ada Lovelace", email: "ada@example.com" } },
      { storage: "filesystem", objectKey: "bob.ogg", offsetMs: BOB_OFFSET_MS, speaker: { displayName: "Bob" } },
    ],
  });
  if (outcome === "processing") return transcriptId;
  for (let leased = 0; leased < 2; leased++) {
    const job = await leaseJob(pool, { leaseMs: 60_000, maxAttempts: 3, events: transcriptEvents });
    if (!job || job.transcriptId !== transcriptId) throw new Error("the transcript's job was not the one leased");
    if (outcome === "failed") {
      expect(await failPiece(pool, job, { code: "audio_unreadable", final: true, retryAfterMs: 0 }, transcriptEvents)).toBe("failed");
      return transcriptId;
    }
    await completePiece(pool, job, { segments: asPiece(job.offsetMs === 0 ? SAID.ada : SAID.bob), nextStart: null }, transcriptEvents);
  }
  expect((await api("GET", `/transcripts/${transcriptId}`)).body.status).toBe("ready");
  return transcriptId;
}

/** The whole page at desktop width, and at phone width (390 px) the whole page and, close up, the transcripts. */
async function shots(name: string) {
  await page.screenshot({ path: `${SHOTS}/${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: `${SHOTS}/${name}-390.png`, fullPage: true });
  await page
    .locator(".card.transcript")
    .first()
    .locator("xpath=..")
    .screenshot({ path: `${SHOTS}/${name}-390-transcripts.png` });
  await page.setViewportSize(DESKTOP);
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [admin, other] = await Promise.all([createTenant(fixture.stack, { name: "Acme Support" }), createTenant(fixture.stack, { name: "Other Org" })]);
  const created = await api("POST", "/meeting", { title: "Weekly sync", recording: "manual", transcription: "on" });
  expect(created.status).toBe(200);
  meetingId = created.body.id;
  // Oldest first: the failed one, then the ready one, then one still being transcribed.
  await makeTranscript("failed");
  await makeTranscript("ready");
  await makeTranscript("processing");
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
  collectPageProblems(page, problems);
  await page.goto(`${fixture.stack.gatewayUrl}/dashboard/sign-in`);
  await page.getByLabel("E-mail address").fill(admin.email);
  await page.getByLabel("Password").fill(admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Meetings" }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("transcripts in the dashboard", () => {
  it("a meeting's page lists its transcripts beside its recordings, each with its state; a failed one says why in the API's words", async () => {
    await page.goto(`${fixture.stack.gatewayUrl}/dashboard/meetings/${meetingId}`);
    const section = page.getByRole("region", { name: "Transcripts" });
    await section.locator(".card.transcript").first().waitFor();
    const setting = page.locator("dt", { hasText: /^Transcription$/ }).locator("xpath=following-sibling::dd[1]");
    expect(await setting.textContent()).toBe("On: each recording is transcribed, who said what");
    const cards = section.locator(".card.transcript");
    expect(await cards.evaluateAll((items) => items.map((item) => item.getAttribute("data-status")))).toEqual(["processing", "ready", "failed"]);
    const statuses = await cards.locator("dl.facts dd:nth-of-type(1)").allTextContents();
    expect(statuses).toEqual(["Transcribing…", "Ready", `Failed (${transcriptionFailureMessages.audio_unreadable})`]);
    expect(await cards.nth(1).locator("dl.facts dd:nth-of-type(2)").textContent()).toBe("Ada Lovelace (ada@example.com), Bob");
    // Only a ready transcript can be read or downloaded; nothing is deleted while it is being made.
    expect(await cards.nth(0).getByRole("button").count()).toBe(0);
    expect(await cards.nth(1).getByRole("button").allTextContents()).toEqual(["Read", "Download", "Delete"]);
    expect(await cards.nth(2).getByRole("button").allTextContents()).toEqual(["Delete"]);
    await shots("meeting-transcripts");

    // The dashboard's calls are the session's organization's: another's session sees none of them.
    const session = await openSession(fixture.stack, other.email, other.password);
    expect((await session.call("GET", `/meeting/${meetingId}/transcripts`)).status).toBe(404);
  });

  it("the reader shows who said what and when, in the meeting's time order; search keeps the passages that hold the words, highlighted, and says how many", async () => {
    const ready = page.locator('.card.transcript[data-status="ready"]');
    await ready.getByRole("button", { name: "Read" }).click();
    const segments = ready.locator("ol.segments > li");
    await segments.first().waitFor();
    expect(await segments.locator(".speaker").allTextContents()).toEqual(["Ada Lovelace", "Bob", "Ada Lovelace", "Bob"]);
    expect(await segments.locator(".at").allTextContents()).toEqual(["0:02", "0:07", "0:14", "0:21"]);
    expect(await segments.locator(".segment-text").allTextContents()).toEqual([SAID.ada[0]!.text, SAID.bob[0]!.text, SAID.ada[1]!.text, SAID.bob[1]!.text]);
    expect(await ready.getByRole("status").textContent()).toBe("4 passages");

    const search = ready.getByLabel("Search the text");
    await search.fill("CHICKEN");
    expect(await segments.locator("visible=true").locator(".segment-text").allTextContents()).toEqual([SAID.bob[1]!.text]);
    expect(await ready.locator("mark").allTextContents()).toEqual(["chicken"]);
    expect(await ready.getByRole("status").textContent()).toBe("1 of 4 passages contain “CHICKEN”.");

    await search.fill("the d");
    expect(await segments.locator("visible=true").locator(".speaker").allTextContents()).toEqual(["Bob", "Ada Lovelace"]);
    expect(await ready.locator("mark").allTextContents()).toEqual(["the d", "the d"]);
    expect(await ready.getByRole("status").textContent()).toBe("2 of 4 passages contain “the d”.");
    await shots("transcript-reader-search");

    await search.fill("nobody said this");
    expect(await segments.locator("visible=true").count()).toBe(0);
    expect(await ready.getByRole("status").textContent()).toBe("No passage contains “nobody said this”.");
    await search.fill("");
    expect(await segments.locator("visible=true").count()).toBe(4);
    expect(await ready.locator("mark").count()).toBe(0);
    await shots("transcript-reader");
  });

  it("Download gives signed WebVTT and JSON links that open without the session: a voice tag per speaker, and the API's document", async () => {
    const ready = page.locator('.card.transcript[data-status="ready"]');
    await ready.getByRole("button", { name: "Download" }).click();
    // The reader stays open beside the links.
    expect(await ready.locator("ol.segments > li").count()).toBe(4);
    const vttLink = ready.getByRole("link", { name: "Download as WebVTT (subtitles)" });
    await vttLink.waitFor();
    const vttUrl = (await vttLink.getAttribute("href"))!;
    const jsonUrl = (await ready.getByRole("link", { name: "Download as JSON" }).getAttribute("href"))!;
    await shots("transcript-downloads");

    const vtt = await fetch(vttUrl);
    expect(vtt.status).toBe(200);
    const parsed = new WebVTTParser().parse(await vtt.text(), "metadata");
    expect(parsed.errors).toEqual([]);
    expect(parsed.cues.map((cue: { text: string }) => cue.text)).toEqual([
      `<v Ada Lovelace>${SAID.ada[0]!.text}</v>`,
      `<v Bob>${SAID.bob[0]!.text}</v>`,
      `<v Ada Lovelace>${SAID.ada[1]!.text}</v>`,
      `<v Bob>${SAID.bob[1]!.text}</v>`,
    ]);
    const json = await fetch(jsonUrl);
    expect(json.status).toBe(200);
    const transcriptId = ((await json.json()) as { id: string; segments: unknown[] }).id;
    expect((await api("GET", `/transcripts/${transcriptId}`)).body.segments).toHaveLength(4);
  });

  it("the Recordings page lists the chosen meeting's transcripts below its recordings", async () => {
    await page.goto(`${fixture.stack.gatewayUrl}/dashboard/recordings`);
    await page.getByLabel("Meeting").selectOption(meetingId);
    await page.getByRole("heading", { level: 2, name: "Transcripts" }).waitFor();
    await page.locator(".card.transcript").nth(2).waitFor();
    expect(await page.locator(".card.transcript").evaluateAll((items) => items.map((item) => item.getAttribute("data-status")))).toEqual([
      "processing",
      "ready",
      "failed",
    ]);
    await shots("recordings-transcripts");
    expect(problems).toEqual([]);
  });
});
