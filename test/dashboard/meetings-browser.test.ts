import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectPageProblems, launchChromium } from "../support/chromium.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { apiBase, callApi, readResponse } from "../support/rest-client.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { useStack } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";
import { subscribeReceiver, useWebhookReceiver } from "../support/webhook-fixtures.ts";
import { openSession } from "./support/dashboard-session.ts";

/**
 * The dashboard's Meetings section in real Chromium against a stack with its own LiveKit: the
 * list's filters and search, a live meeting's presence as real participants (Chromium with a fake
 * camera) come and go, the attendance of an ended meeting with its no-show, roles, the usage
 * overview's numbers against the API's, and a cancelled meeting's page. Screenshots at desktop and phone width go to SHOTS.
 */

const SHOTS = process.env.DASHBOARD_MEETINGS_SHOTS_DIR ?? "/tmp/dash-meetings-shots";
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

const fixture = useStack({ media: true, env: { WEBHOOK_POLL_INTERVAL_MS: "200", MEETING_EMPTY_GRACE_SECONDS: "600" } });
const receiver = useWebhookReceiver();

let admin: Tenant;
let other: Tenant;
let browser: Browser;
let adminContext: BrowserContext;
let page: Page;
let webhookId: string;
/** The meeting of the attendance tests, whose visits are the usage overview's. */
let endedMeetingId: string;
const member = { email: `member-${randomUUID().slice(0, 8)}@example.com`, password: "member password 1" };
const problems: string[] = [];

const api = (method: string, path: string, body?: unknown, key = admin.apiKey) =>
  callApi(apiBase(fixture.stack), method, path, { key, body }).then(readResponse);

async function createMeeting(body: Record<string, unknown>, key = admin.apiKey): Promise<{ id: string; url: string }> {
  const created = await api("POST", "/meeting", body, key);
  if (created.status !== 200) throw new Error(`creating a meeting answered ${created.status}`);
  return created.body;
}

async function signIn(target: Page, email: string, password: string) {
  await target.goto(`${fixture.stack.gatewayUrl}/dashboard/sign-in`);
  await target.getByLabel("E-mail address").fill(email);
  await target.getByLabel("Password").fill(password);
  await target.getByRole("button", { name: "Sign in" }).click();
  await target.getByRole("heading", { level: 1, name: "Meetings" }).waitFor();
}

/** A full-page screenshot at desktop width and one at phone width (390 px), to look at. */
async function shots(target: Page, name: string) {
  await target.screenshot({ path: `${SHOTS}/${name}-desktop.png`, fullPage: true });
  await target.setViewportSize(PHONE);
  await target.screenshot({ path: `${SHOTS}/${name}-390.png`, fullPage: true });
  await target.setViewportSize(DESKTOP);
}

const listedTitles = (target: Page) => target.locator("table.meetings tbody tr th").allTextContents();

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [admin, other] = await Promise.all([createTenant(fixture.stack, { name: "Acme Support" }), createTenant(fixture.stack, { name: "Other Org" })]);
  ({ webhookId } = await subscribeReceiver(fixture.stack, receiver, admin.apiKey, "/meetings", {
    events: ["meeting.started", "meeting.ended", "participant.joined", "participant.left"],
  }));
  const session = await openSession(fixture.stack, admin.email, admin.password);
  expect((await session.call("POST", "/users", { ...member, role: "member" })).status).toBe(201);
  browser = await launchChromium({ fakeMedia: true });
  adminContext = await browser.newContext({ viewport: DESKTOP });
  page = await adminContext.newPage();
  collectPageProblems(page, problems);
});

afterAll(async () => {
  await browser?.close();
});

describe("Meetings section of the dashboard", () => {
  it("an organization without meetings sees an empty list that says how meetings get there", async () => {
    await signIn(page, admin.email, admin.password);
    expect(await page.getByRole("navigation").getByRole("link").allTextContents()).toEqual([
      "Meetings",
      "Usage",
      "Recordings",
      "API keys",
      "OAuth clients",
      "Webhooks",
      "Authorized apps",
      "Users",
      "Third-party apps",
      "Embedding",
    ]);
    await page.getByText("Your organization has no meetings yet.").waitFor();
    expect(await page.getByText("POST /api/v1/meeting").isVisible()).toBe(true);
  });

  it("the list is newest first, with status, hosts, invited and joined counts; filters and search find the right rows, and only the organization's", async () => {
    await createMeeting({ title: "Quarterly review", start: "2031-03-10T10:00:00Z", attendees: ["dora@example.com", "finn@example.com"] });
    await createMeeting({ title: "Design sync", start: "2031-03-20T10:00:00Z", hosts: ["erin@example.com"], recording: "manual" });
    const debrief = await createMeeting({ title: "Hiring debrief" });
    expect((await api("DELETE", `/meeting/${debrief.id}`)).status).toBe(200);
    await createMeeting({ title: "Quarterly secret", attendees: ["dora@example.com"] }, other.apiKey);

    await page.goto(`${fixture.stack.gatewayUrl}/dashboard/meetings`);
    await page.locator("table.meetings").waitFor();
    expect(await listedTitles(page)).toEqual(["Hiring debrief", "Design sync", "Quarterly review"]);
    const review = page.getByRole("row", { name: /Quarterly review/ });
    expect(await review.getByRole("cell").allTextContents()).toEqual(["Scheduled", expect.stringMatching(/2031/), "None", "2", "0", "Off"]);
    const sync = page.getByRole("row", { name: /Design sync/ });
    expect(await sync.getByRole("cell").allTextContents()).toEqual([
      "Scheduled",
      expect.stringMatching(/2031/),
      "erin@example.com",
      "1",
      "0",
      "May be recorded",
    ]);
    expect(
      await page
        .getByRole("row", { name: /Hiring debrief/ })
        .getByRole("cell")
        .first()
        .textContent(),
    ).toBe("Cancelled");
    await shots(page, "meetings-list");

    const find = async (fields: { search?: string; status?: string; from?: string; to?: string }) => {
      await page.getByLabel("Search", { exact: true }).fill(fields.search ?? "");
      await page.getByLabel("Status").selectOption(fields.status ?? "");
      await page.getByLabel("Starts on or after").fill(fields.from ?? "");
      await page.getByLabel("Starts on or before").fill(fields.to ?? "");
      await page.getByRole("button", { name: "Find meetings" }).click();
      await page.locator(".region[aria-busy]").waitFor({ state: "detached" });
    };
    await find({ search: "quarterly" });
    expect(await listedTitles(page)).toEqual(["Quarterly review"]);
    expect(page.url()).toContain("q=quarterly");
    await find({ search: "ERIN@example" });
    expect(await listedTitles(page)).toEqual(["Design sync"]);
    await find({ search: "dora@example.com" });
    expect(await listedTitles(page)).toEqual(["Quarterly review"]);
    await find({ status: "cancelled" });
    expect(await listedTitles(page)).toEqual(["Hiring debrief"]);
    await find({ from: "2031-03-15", to: "2031-03-31" });
    expect(await listedTitles(page)).toEqual(["Design sync"]);
    await find({ from: "2031-03-01", to: "2031-03-10" });
    expect(await listedTitles(page)).toEqual(["Quarterly review"]);
    await find({ search: "no such meeting anywhere" });
    await page.getByText("No meetings match these filters.").waitFor();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.locator("table.meetings").waitFor();
    expect(await listedTitles(page)).toEqual(["Hiring debrief", "Design sync", "Quarterly review"]);
    // The filters live in the address: a reload shows the same rows.
    await page.goto(`${fixture.stack.gatewayUrl}/dashboard/meetings?status=cancelled`);
    await page.locator("table.meetings").waitFor();
    expect(await listedTitles(page)).toEqual(["Hiring debrief"]);
    expect(problems).toEqual([]);
  });

  describe("a meeting two invitees joined and a third missed", () => {
    let meeting: { id: string; url: string };
    const people: Page[] = [];

    afterAll(async () => {
      await Promise.all(people.map((person) => person.close().catch(() => undefined)));
    });

    it("while it is live, its page shows who is in the room and follows it when one leaves", async () => {
      meeting = await createMeeting({
        title: "Support call: link did not work",
        start: new Date().toISOString(),
        attendees: ["ada@example.com", "bob@example.com", "carol@example.com"],
      });
      endedMeetingId = meeting.id;
      const link = async (email: string) => (await api("POST", `/meeting/${meeting.id}/links`, { email })).body.url as string;
      const [adaLink, bobLink] = await Promise.all([link("ada@example.com"), link("bob@example.com")]);
      people.push(await joinMeeting(browser, adaLink, "Ada Lovelace"));
      people.push(await joinMeeting(browser, bobLink, "Bob Builder"));

      await page.goto(`${fixture.stack.gatewayUrl}/dashboard/meetings`);
      const row = page.getByRole("row", { name: /Support call/ });
      await row.waitFor();
      expect(await row.getByRole("cell").allTextContents()).toEqual(["Live", expect.any(String), "None", "3", "2", "Off"]);
      await row.getByRole("link").click();
      await page.getByRole("heading", { level: 1, name: "Support call: link did not work" }).waitFor();
      const present = page.getByRole("list", { name: "In the room now" });
      await expect.poll(() => present.getByRole("listitem").count(), { timeout: 15_000 }).toBe(2);
      expect(await present.textContent()).toContain("Ada Lovelace");
      expect(await present.textContent()).toContain("Bob Builder");
      expect(await page.getByRole("textbox", { name: "Join URL" }).inputValue()).toBe(meeting.url);
      await page.getByRole("table", { name: /Webhook deliveries about this meeting/ }).waitFor();

      // A personal link for a guest, shown once.
      await page.getByLabel("For", { exact: true }).selectOption({ label: "A guest (not invited)" });
      await page.getByLabel("Guest's name").fill("Gus Guest");
      await page.getByRole("button", { name: "Create personal link" }).click();
      const guestLink = await page.getByRole("textbox", { name: "Personal link for Gus Guest" }).inputValue();
      expect(guestLink).toMatch(new RegExp(`^${meeting.url}#link=[A-Za-z0-9_-]+$`));
      expect(await page.getByText("The link is shown only this once").isVisible()).toBe(true);
      await shots(page, "meeting-live");

      // Bob leaves the room; the open page follows without a reload.
      await people[1]!.getByRole("button", { name: "Leave" }).click();
      await expect.poll(() => present.textContent(), { timeout: 20_000 }).not.toContain("Bob Builder");
      expect(await present.textContent()).toContain("Ada Lovelace");
      const bobRow = page.getByRole("row", { name: /Bob Builder/ });
      expect(await bobRow.getByRole("cell").last().textContent()).toBe("Came");
    });

    it("ended from the dashboard after confirming, its page shows each visit, the total times and the no-show, as the API does", async () => {
      await page.getByRole("button", { name: "End the meeting for everyone" }).click();
      const dialog = page.getByRole("dialog", { name: "End this meeting for everyone?" });
      await dialog.waitFor();
      await dialog.getByRole("button", { name: "End meeting" }).click();
      await page.getByRole("status").filter({ hasText: "The meeting was ended." }).waitFor();
      await page.locator("[data-status=ended]").first().waitFor();

      const table = page.getByRole("table", { name: "Attendance" });
      await table.waitFor();
      const rowOf = (name: RegExp) => table.getByRole("row", { name });
      for (const name of [/Ada Lovelace/, /Bob Builder/]) {
        const cells = await rowOf(name).getByRole("cell").allTextContents();
        expect(cells[0]).toBe("Invited attendee");
        expect(await rowOf(name).getByRole("cell").nth(1).getByRole("listitem").count()).toBe(1);
        expect(cells[2]).toMatch(/^\d+ (s|min \d\d s)$/);
        expect(cells[3]).toBe("Came");
      }
      expect(
        await rowOf(/carol@example.com/)
          .getByRole("cell")
          .allTextContents(),
      ).toEqual(["Invited attendee", "No visits", "—", "No-show"]);
      expect(await page.getByRole("list", { name: "In the room now" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: /End the meeting|Cancel the meeting/ }).count()).toBe(0);

      const attendance = (await api("GET", `/meeting/${meeting.id}/attendance`)).body;
      expect(attendance.status).toBe("ended");
      expect(
        attendance.people.map((person: { email: string; visits: unknown[]; noShow: boolean }) => [person.email, person.visits.length, person.noShow]),
      ).toEqual([
        ["ada@example.com", 1, false],
        ["bob@example.com", 1, false],
        ["carol@example.com", 0, true],
      ]);

      // The deliveries about it, from the delivery log, each linking to its endpoint's card.
      await waitFor(
        () => receiver.received.some((delivery) => delivery.payload?.type === "meeting.ended" && delivery.payload.data.meetingId === meeting.id),
        20_000,
      );
      await page.reload();
      const deliveries = page.getByRole("table", { name: /Webhook deliveries about this meeting/ });
      await expect.poll(() => deliveries.getByText("meeting.ended").count(), { timeout: 15_000 }).toBe(1);
      expect(await deliveries.getByText("participant.joined").count()).toBe(2);
      const endpoint = deliveries.getByRole("link").first();
      expect(await endpoint.getAttribute("href")).toBe(`/dashboard/webhooks#webhook-${webhookId}`);
      await shots(page, "meeting-ended");
      await endpoint.click();
      await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(`webhook-${webhookId}`);
    });

    it("a member reads the meeting and its recordings but is offered no delete, which the API refuses them", async () => {
      // A finished recording of the meeting, as the recorder leaves it (the file itself is not played here).
      const recordingId = randomUUID();
      await fixture.stack.query(
        `INSERT INTO meeting.recordings (id, meeting_id, org_id, egress_id, layout, status, started_by, storage, object_key, started_at, ended_at, duration_ms, size_bytes)
         VALUES ($1, $2, $3, $4, 'grid', 'ready', 'api', 'filesystem', $5, now() - interval '2 minutes', now(), 90000, 5242880)`,
        [recordingId, meeting.id, admin.orgId, `EG_${recordingId.slice(0, 8)}`, `${meeting.id}/${recordingId}.mp4`],
      );
      await page.goto(`${fixture.stack.gatewayUrl}/dashboard/meetings/${meeting.id}`);
      const recordings = page.getByRole("region", { name: "Recordings" });
      await recordings.getByRole("button", { name: /^Play/ }).waitFor();
      expect(await recordings.getByRole("button", { name: /^Delete/ }).count()).toBe(1);

      const memberContext = await browser.newContext({ viewport: DESKTOP });
      const memberPage = await memberContext.newPage();
      try {
        await signIn(memberPage, member.email, member.password);
        expect(await memberPage.getByRole("navigation").getByRole("link").allTextContents()).toEqual([
          "Meetings",
          "Usage",
          "Recordings",
          "API keys",
          "Webhooks",
          "Authorized apps",
        ]);
        await memberPage
          .getByRole("row", { name: /Support call/ })
          .getByRole("link")
          .click();
        const memberRecordings = memberPage.getByRole("region", { name: "Recordings" });
        await memberRecordings.getByRole("button", { name: /^Play/ }).waitFor();
        expect(await memberPage.getByRole("button", { name: /Delete/ }).count()).toBe(0);
        // The page loads its regions each on its own: the attendance may come after the recordings.
        await expect.poll(() => memberPage.getByRole("table", { name: "Attendance" }).getByRole("row").count(), { timeout: 10_000 }).toBe(4);
        const refused = await memberPage.evaluate(async (id) => {
          const csrf = document.cookie
            .split("; ")
            .find((part) => part.startsWith("svc_csrf="))!
            .slice("svc_csrf=".length);
          const response = await fetch(`/api/v1/recordings/${id}`, { method: "DELETE", headers: { "x-csrf-token": csrf } });
          return response.status;
        }, recordingId);
        expect(refused).toBe(403);
        // Another organization's meeting does not exist for them.
        const foreign = await createMeeting({ title: "Not yours" }, other.apiKey);
        await memberPage.goto(`${fixture.stack.gatewayUrl}/dashboard/meetings/${foreign.id}`);
        await memberPage.getByRole("alert").filter({ hasText: "Meeting not found" }).waitFor();
      } finally {
        await memberContext.close();
      }
    });
  });

  it("the usage overview's charts and table show the API's numbers", async () => {
    await page.goto(`${fixture.stack.gatewayUrl}/dashboard/usage`);
    const table = page.getByRole("table", { name: /Per day/ });
    await table.waitFor();
    const usage = (await api("GET", "/usage?days=30")).body as {
      days: { date: string; meetings: number; participantMinutes: number }[];
      recordingMinutes: number;
      storageBytes: number;
    };
    expect(usage.days).toHaveLength(30);
    const today = usage.days.at(-1)!;
    expect(today.meetings).toBe(1);
    // The only visits were Ada's and Bob's in the ended meeting today: the period's minutes are theirs.
    const attended = (await api("GET", `/meeting/${endedMeetingId}/attendance`)).body.people.reduce(
      (sum: number, person: { totalSeconds: number }) => sum + person.totalSeconds,
      0,
    );
    expect(attended).toBeGreaterThan(0);
    expect(Math.abs(usage.days.reduce((sum, day) => sum + day.participantMinutes, 0) - attended / 60)).toBeLessThanOrEqual(0.2);
    expect(usage.days.slice(0, -1).every((day) => day.meetings === 0 && day.participantMinutes === 0)).toBe(true);
    const rows = await table
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-date"), ...Array.from(tr.querySelectorAll("td"), (td) => td.textContent)]));
    const format = new Intl.NumberFormat(await page.evaluate(() => navigator.language), { maximumFractionDigits: 1 });
    expect(rows).toEqual([...usage.days].reverse().map((day) => [day.date, String(day.meetings), format.format(day.participantMinutes)]));
    const bars = (name: string) =>
      page
        .getByRole("img", { name })
        .locator("rect.bar")
        .evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute("data-value"))));
    expect(await bars("Meetings per day")).toEqual(usage.days.map((day) => day.meetings));
    expect(await bars("Participant-minutes per day")).toEqual(usage.days.map((day) => day.participantMinutes));
    expect(usage.recordingMinutes).toBe(1.5);
    expect(await page.getByText("5 MB").count()).toBe(1);
    await shots(page, "usage");
  });

  it("a cancelled meeting's page still shows what it was: its people, its recording and its transcripts (the API answers each read 410 with the body)", async () => {
    const meeting = await createMeeting({ title: "Cancelled review", attendees: ["dora@example.com"] });
    const recordingId = randomUUID();
    await fixture.stack.query(
      `INSERT INTO meeting.recordings (id, meeting_id, org_id, egress_id, layout, status, started_by, storage, object_key, started_at, ended_at, duration_ms, size_bytes)
       VALUES ($1, $2, $3, $4, 'grid', 'ready', 'api', 'filesystem', $5, now() - interval '2 minutes', now(), 90000, 5242880)`,
      [recordingId, meeting.id, admin.orgId, `EG_${recordingId.slice(0, 8)}`, `${meeting.id}/${recordingId}.mp4`],
    );
    expect((await api("DELETE", `/meeting/${meeting.id}`)).status).toBe(200);
    for (const read of ["", "/attendance", "/recordings", "/transcripts"]) expect((await api("GET", `/meeting/${meeting.id}${read}`)).status, read).toBe(410);

    await page.goto(`${fixture.stack.gatewayUrl}/dashboard/meetings/${meeting.id}`);
    await page.getByRole("heading", { level: 1, name: "Cancelled review" }).waitFor();
    const attendance = page.getByRole("table", { name: "Attendance" });
    expect(
      await attendance
        .getByRole("row", { name: /dora@example.com/ })
        .getByRole("cell")
        .allTextContents(),
    ).toEqual(["Invited attendee", "No visits", "—", "Did not come"]);
    await page.getByRole("region", { name: "Recordings" }).getByRole("button", { name: /^Play/ }).waitFor();
    await page.getByRole("heading", { level: 2, name: "Transcripts" }).waitFor();
    expect(await page.getByText(/The request failed|Meeting was cancelled/).count()).toBe(0);
    await shots(page, "meeting-cancelled");
  });

  it("at phone width the navigation waits behind a Menu button, and choosing a page folds it again", async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${fixture.stack.gatewayUrl}/dashboard/meetings`);
    await page.locator("table.meetings").waitFor();
    const menu = page.getByRole("button", { name: "Menu" });
    expect(await page.getByRole("navigation").isVisible()).toBe(false);
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    await page.screenshot({ path: `${SHOTS}/meetings-list-390-first-screen.png` });
    await menu.click();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    await page.screenshot({ path: `${SHOTS}/menu-open-390.png` });
    await page.getByRole("navigation").getByRole("link", { name: "Usage" }).click();
    await page.getByRole("heading", { level: 1, name: "Usage" }).waitFor();
    expect(await page.getByRole("navigation").isVisible()).toBe(false);
    await page.setViewportSize(DESKTOP);
    expect(await menu.isVisible()).toBe(false);
    expect(await page.getByRole("navigation").isVisible()).toBe(true);
    expect(problems).toEqual([]);
  });
});
