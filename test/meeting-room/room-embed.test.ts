import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, type DashboardSession } from "../dashboard/support/dashboard-session.ts";
import { collectPageProblems, launchChromium } from "../support/chromium.ts";
import { holdStill } from "../support/hold-still.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { useStack } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";

/**
 * Issue 42, embedding, in real Chromium: an integrator's page on another origin (another port of
 * 127.0.0.1 is another origin) frames the join page with the documented <iframe>. When the
 * meeting's organization allows that origin the room works inside the frame and the parent
 * receives the room's events by postMessage; when it does not (or by default), the browser refuses
 * the frame.
 */

const SHOTS = process.env.MEETING_ROOM_SHOTS_DIR ?? "/tmp/room-shots";

/** A message the parent page received: the sender's origin and the data. */
interface Received {
  origin: string;
  data: { source: string; version: number; meetingId: string; type: string; [field: string]: unknown };
}

/**
 * The integrator's page of docs/meeting-room.md ("Embedding the room"): the <iframe> with its
 * `allow` attribute, and a listener that accepts only messages from the meeting's origin. It
 * keeps what it received in `window.received`, and says the last event on the page.
 */
function parentPage(meetingUrl: string): string {
  const meetingOrigin = new URL(meetingUrl).origin;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme Scheduler · Your appointment</title>
<style>
  body { margin: 0; font-family: system-ui, sans-serif; background: #f4f1ea; color: #1d2433; }
  header { padding: 12px 16px; background: #1d3557; color: #fff; }
  iframe { display: block; width: 100%; height: calc(100vh - 100px); border: 0; }
  p { margin: 8px 16px; }
</style>
</head>
<body>
<header><strong>Acme Scheduler</strong> · Your appointment with Dr. Rivera</header>
<iframe id="meeting" title="Video meeting" src="${meetingUrl}" allow="camera; microphone; display-capture; autoplay"></iframe>
<p id="last-event">No meeting event yet</p>
<script>
  window.received = [];
  window.addEventListener("message", (event) => {
    if (event.origin !== ${JSON.stringify(meetingOrigin)} || event.data?.source !== "svc-meeting") return;
    window.received.push({ origin: event.origin, data: event.data });
    document.getElementById("last-event").textContent = "Last meeting event: " + event.data.type;
  });
</script>
</body>
</html>`;
}

/** An integrator's site on a port of its own: serves `parentPage` for the meeting URL in `?meeting=`. */
async function startParentSite(): Promise<{ origin: string; pageFor(meetingUrl: string): string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const meetingUrl = new URL(req.url ?? "/", "http://parent").searchParams.get("meeting");
    if (!meetingUrl) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(parentPage(meetingUrl));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pageFor: (meetingUrl) => `${origin}/?meeting=${encodeURIComponent(meetingUrl)}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let tenant: Tenant;
let unembeddable: Tenant;
let admin: DashboardSession;
let allowedSite: Awaited<ReturnType<typeof startParentSite>>;
let otherSite: Awaited<ReturnType<typeof startParentSite>>;
let browser: Browser;

const fixture = useStack({ media: true });
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [tenant, unembeddable, allowedSite, otherSite] = await Promise.all([
    createTenant(fixture.stack, { name: "Embedding clinic" }),
    createTenant(fixture.stack, { name: "Not embedding" }),
    startParentSite(),
    startParentSite(),
  ]);
  admin = await openSession(fixture.stack, tenant.email, tenant.password);
  const set = await admin.call("PUT", "/meeting-embedding", { allowedOrigins: [allowedSite.origin] });
  expect(set.body).toEqual({ allowedOrigins: [allowedSite.origin] });
  browser = await launchChromium({ fakeMedia: true });
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([allowedSite?.close(), otherSite?.close()]);
});

async function createMeeting(owner: Tenant): Promise<{ id: string; url: string }> {
  const response = await callApi(apiBase(fixture.stack), "POST", "/meeting", { key: owner.apiKey, body: { title: "Follow-up consultation" } });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string; url: string };
}

/** Opens the integrator's page in a new browser context, collecting script errors and CSP violations. */
async function openParent(url: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems: string[] = [];
  collectPageProblems(page, problems);
  page.on("close", () => void context.close().catch(() => undefined));
  await page.goto(url);
  return { page, problems };
}

const received = (page: Page) => page.evaluate(() => (window as unknown as { received: Received[] }).received);
const receivedTypes = async (page: Page) => (await received(page)).map((message) => message.data.type);

describe("the join page in an integrator's iframe", () => {
  it("works on an allowed origin: the person joins inside the frame and the parent receives joined, participant-joined/left, hand-raised, left and meeting-ended from the meeting's origin", async () => {
    const meeting = await createMeeting(tenant);
    const { page, problems } = await openParent(allowedSite.pageFor(meeting.url));
    const room = page.frameLocator("#meeting");
    await room.getByLabel("Your name").fill("Ada Patient");
    await room.getByRole("button", { name: /^Join/ }).click();
    await room.getByRole("group", { name: "Meeting controls" }).waitFor({ timeout: 20_000 });

    await waitFor(async () => (await receivedTypes(page)).includes("joined"), 10_000, "the parent received no `joined`");
    const [joined] = await received(page);
    expect(joined).toEqual({
      origin: fixture.stack.gatewayUrl,
      data: {
        source: "svc-meeting",
        version: 1,
        meetingId: meeting.id,
        type: "joined",
        participant: { id: expect.any(String), name: "Ada Patient" },
        role: "guest",
        participants: [],
      },
    });

    const doctor = await joinMeeting(browser, meeting.url, "Dr. Rivera");
    await waitFor(async () => (await receivedTypes(page)).includes("participant-joined"), 20_000, "no `participant-joined`");
    expect((await received(page)).find((message) => message.data.type === "participant-joined")?.data.participant).toEqual({
      id: expect.any(String),
      name: "Dr. Rivera",
    });
    await room.locator("li.tile[data-participant-id]:not([data-local])").first().waitFor({ timeout: 20_000 });
    await page.getByText("Last meeting event: participant-joined").waitFor();
    await page.screenshot({ path: `${SHOTS}/embed-desktop.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    // The frame lays itself out again at the new width before the picture is taken.
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame())!;
    await waitFor(
      () => frame.evaluate(() => new Promise<boolean>((resolve) => requestAnimationFrame(() => resolve(innerWidth === 390)))),
      5_000,
      "the frame kept its width",
    );
    await room.getByRole("group", { name: "Meeting controls" }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/embed-phone.png` });
    await page.setViewportSize({ width: 1280, height: 800 });

    // A hand raised and lowered in the room (the doctor's, carried by the server) reaches the parent both times.
    await doctor.getByRole("button", { name: "Raise hand" }).click();
    await waitFor(async () => (await receivedTypes(page)).includes("hand-raised"), 20_000, "no `hand-raised` for the raised hand");
    await doctor.getByRole("button", { name: "Lower hand" }).click();
    const hands = async () => (await received(page)).filter((message) => message.data.type === "hand-raised");
    await waitFor(async () => (await hands()).length === 2, 20_000, "no `hand-raised` for the lowered hand");
    expect((await hands()).map(({ data }) => [(data.participant as { name: string }).name, data.raised])).toEqual([
      ["Dr. Rivera", true],
      ["Dr. Rivera", false],
    ]);

    await doctor.getByRole("button", { name: "Leave" }).click();
    await waitFor(async () => (await receivedTypes(page)).includes("participant-left"), 20_000, "no `participant-left`");
    expect((await received(page)).find((message) => message.data.type === "participant-left")?.data.participant).toMatchObject({ name: "Dr. Rivera" });

    expect((await callApi(apiBase(fixture.stack), "POST", `/meeting/${meeting.id}/end`, { key: tenant.apiKey })).status).toBe(200);
    await waitFor(async () => (await receivedTypes(page)).includes("meeting-ended"), 20_000, "no `meeting-ended`");
    const messages = await received(page);
    expect(messages.map((message) => message.data.type)).toEqual([
      "joined",
      "participant-joined",
      "hand-raised",
      "hand-raised",
      "participant-left",
      "left",
      "meeting-ended",
    ]);
    expect(messages.find((message) => message.data.type === "left")?.data.reason).toBe("ended");
    // Every message came from the meeting's origin (the listener drops others) about this meeting.
    expect(new Set(messages.map((message) => `${message.origin} ${message.data.meetingId}`))).toEqual(new Set([`${fixture.stack.gatewayUrl} ${meeting.id}`]));
    expect(problems).toEqual([]);
    await page.close();
  });

  it("is refused by the browser on an origin the organization did not allow: the CSP names only the allowed one, the frame does not render, nothing is posted", async () => {
    const meeting = await createMeeting(tenant);
    const response = await fetch(meeting.url);
    expect(response.headers.get("content-security-policy")).toMatch(new RegExp(`(?:^|;)\\s*frame-ancestors ${allowedSite.origin}(?:;|$)`));
    expect(response.headers.get("x-frame-options")).toBeNull();

    const { page } = await openParent(otherSite.pageFor(meeting.url));
    await expectFrameNotRendered(page, meeting.url);
  });

  it("is refused by default: a meeting of an organization that allowed no origin keeps frame-ancestors 'none'", async () => {
    const meeting = await createMeeting(unembeddable);
    const response = await fetch(meeting.url);
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("x-frame-options")).toBe("DENY");

    const { page } = await openParent(allowedSite.pageFor(meeting.url));
    await expectFrameNotRendered(page, meeting.url);
  });
});

/**
 * Once the parent page has loaded (its load event waits for the frame, refused or not), the frame
 * holds no meeting page (Chromium shows its error page instead), and the parent received nothing.
 */
async function expectFrameNotRendered(page: Page, meetingUrl: string) {
  await page.waitForLoadState("load");
  const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
  expect(frame).toBeDefined();
  await page.screenshot({ path: `${SHOTS}/embed-refused-${new URL(meetingUrl).pathname.split("/").pop()}.png` });
  // The meeting page's own elements (Chromium's error page has a heading of its own).
  expect(await frame!.locator("#meeting, #view, #meeting-title").count(), `the frame of ${meetingUrl} rendered`).toBe(0);
  await holdStill(1_000, "a refused frame must not post anything, even late");
  expect(await received(page)).toEqual([]);
}
