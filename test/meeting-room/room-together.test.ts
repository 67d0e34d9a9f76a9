import { mkdirSync } from "node:fs";
import path from "node:path";
import { RequestResponse_Reason } from "@livekit/protocol";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { holdStill } from "../support/hold-still.ts";
import { startMediaRelay } from "../support/media-relay.ts";
import { forgeOwnAttributes } from "../support/media-signal.ts";
import { screenshotDir } from "../support/meeting-room-browser.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { useStack } from "../support/use-stack.ts";

// Three real Chromium participants with fake cameras and microphones, through a real LiveKit, in a
// meeting with a lobby: Hanna the host (host link), Ada (attendee link) and Walk-in Guest (the
// plain URL, on a phone-sized page). Co-host, raised hands, reactions, speaker view, pins,
// spotlight and connection quality (docs/meeting-room.md, "Together in the call"). Every state is
// photographed into screenshotDir (test/support/meeting-room-browser.ts).
let tenant: Tenant;
let browser: Browser;
const contexts: BrowserContext[] = [];
let meetingId = "";
let host: Page;
let ada: Page;
let guest: Page;
let guestId = "";
let adaId = "";
let guestSession: () => string;
let adaSession: () => string;

const fixture = useStack({ media: true });
beforeAll(async () => {
  browser = await launchChromium({ fakeMedia: true });
  tenant = await createTenant(fixture.stack);
  mkdirSync(screenshotDir, { recursive: true });
}, 180_000);
afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
});

const api = (method: string, apiPath: string, body?: unknown) => callApi(apiBase(fixture.stack), method, apiPath, { key: tenant.apiKey, body });
const roomCall = (session: string, method: string, apiPath: string, body?: unknown) =>
  callApi(apiBase(fixture.stack), method, `/meeting/${meetingId}/room${apiPath}`, { headers: { "x-room-session": session }, body });
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(screenshotDir, `${name}.png`) });

/** A person's browser: a context of its own (own cookies); the room session its page is granted, as the page receives it. */
async function person(viewport = { width: 1280, height: 800 }): Promise<{ page: Page; roomSession: () => string }> {
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  const page = await context.newPage();
  let roomSession = "";
  page.on("response", (response) => {
    if (!/\/(join|lobby\/status)$/.test(new URL(response.url()).pathname) || !response.ok()) return;
    void response
      .json()
      .then((body: { roomSession?: string; grant?: { roomSession?: string } | null }) => {
        roomSession = body.roomSession ?? body.grant?.roomSession ?? roomSession;
      })
      .catch(() => undefined);
  });
  return { page, roomSession: () => roomSession };
}

async function openAndJoin(page: Page, url: string, name: string) {
  // Generous: five engineers' test runs share two cores here.
  await page.goto(url, { timeout: 90_000 });
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: /^Join/ }).click();
}

const inRoom = (page: Page) => page.getByRole("group", { name: "Meeting controls" }).waitFor({ timeout: 45_000 });
const personalLink = async (body: unknown) => ((await (await api("POST", `/meeting/${meetingId}/links`, body)).json()) as { url: string }).url;
const ownId = async (page: Page) => (await page.locator("li.tile[data-local]").getAttribute("data-participant-id"))!;
const tileOf = (page: Page, identity: string) => page.locator(`li.tile[data-participant-id="${identity}"]`);
const peopleOf = (page: Page) => page.getByRole("list", { name: "People in the meeting" });
/** The names in the people list, top to bottom. */
const peopleInOrder = async (page: Page) => (await peopleOf(page).locator(".person-name").allTextContents()).map((name) => name.replace(/ \(you\)$/, ""));
const announced = (page: Page, text: string) => page.locator("[aria-live='polite']").filter({ hasText: text }).count();
const more = async (page: Page, whom: string) =>
  peopleOf(page)
    .getByRole("button", { name: `More for ${whom}` })
    .click();
const stageLayout = (page: Page) => page.locator(".stage").getAttribute("data-layout");
const featuredIds = (page: Page) => page.locator(".featured > li.tile").evaluateAll((tiles) => tiles.map((tile) => tile.getAttribute("data-participant-id")));

describe("together in the call: co-host, hands, reactions, layouts, connection quality", () => {
  it(
    "a host makes an attendee a co-host live: host controls without a reload, and the co-host admits someone from the lobby",
    { timeout: 240_000 },
    async () => {
      const created = (await (
        await api("POST", "/meeting", {
          title: "Planning",
          start: new Date().toISOString(),
          hosts: ["host@example.com"],
          attendees: ["ada@example.com"],
          lobby: true,
        })
      ).json()) as { id: string; url: string };
      meetingId = created.id;
      const hostUrl = await personalLink({ email: "host@example.com" });
      const adaUrl = await personalLink({ email: "ada@example.com" });

      host = (await person()).page;
      await openAndJoin(host, hostUrl, "Hanna Host");
      await inRoom(host);
      const adaPerson = await person();
      ada = adaPerson.page;
      adaSession = adaPerson.roomSession;
      await openAndJoin(ada, adaUrl, "Ada Attendee");
      await expect.poll(() => host.getByLabel("1 waiting").count(), { timeout: 15_000 }).toBe(1);
      await host.getByRole("button", { name: "Admit Ada Attendee" }).click();
      await inRoom(ada);
      adaId = await ownId(ada);
      expect(await ada.getByRole("heading", { name: "Waiting to join" }).count(), "an attendee has no lobby controls").toBe(0);

      // Promoted from the host's people list, without a reload of Ada's page.
      await ada.evaluate(() => ((window as unknown as { beforePromotion: boolean }).beforePromotion = true));
      await more(host, "Ada Attendee");
      await host.getByRole("button", { name: "Make Ada Attendee a host" }).click();
      await ada.getByRole("heading", { name: "Waiting to join" }).waitFor({ timeout: 15_000 });
      expect(await ada.evaluate(() => (window as unknown as { beforePromotion?: boolean }).beforePromotion)).toBe(true);
      await expect.poll(() => announced(ada, "You are now a host of this meeting."), { timeout: 5_000 }).toBe(1);
      // Stored: the meeting's hosts (for the rest of the meeting), and everyone's list shows the role.
      const meeting = (await (await api("GET", `/meeting/${meetingId}`)).json()) as { hosts: string[]; attendees: string[] };
      expect(meeting.hosts).toEqual(["host@example.com", "ada@example.com"]);
      await peopleOf(host).getByRole("listitem").filter({ hasText: "Ada Attendee" }).getByText("Host", { exact: true }).waitFor({ timeout: 10_000 });

      // The co-host admits the guest from the lobby.
      const guestPerson = await person({ width: 390, height: 844 });
      guest = guestPerson.page;
      guestSession = guestPerson.roomSession;
      await openAndJoin(guest, created.url, "Walk-in Guest");
      await guest.getByRole("heading", { name: "Waiting to be let in" }).waitFor({ timeout: 30_000 });
      await expect.poll(() => ada.getByLabel("1 waiting").count(), { timeout: 15_000 }).toBe(1);
      await ada.getByRole("button", { name: "Admit Walk-in Guest" }).click();
      await inRoom(guest);
      guestId = await ownId(guest);
      expect(guestSession()).not.toBe("");

      // A guest is no host: the server refuses them making anyone a host, whatever their page shows.
      const refused = await roomCall(guestSession(), "POST", `/participants/${adaId}/role`, { host: false });
      expect(refused.status).toBe(403);
    },
  );

  it(
    "hands: raised by button and by keyboard, shown on tiles and in the list in the order raised; a forged attribute is refused; the person or a host lowers it",
    { timeout: 180_000 },
    async () => {
      await guest.getByRole("button", { name: "Raise hand" }).click();
      await tileOf(host, guestId).getByRole("img", { name: "Hand raised, 1st" }).waitFor({ timeout: 15_000 });
      // Ada raises hers with the keyboard (Alt+Y, listed in the shortcuts' help).
      await ada.locator("body").press("Alt+y");
      await tileOf(host, adaId).getByRole("img", { name: "Hand raised, 2nd" }).waitFor({ timeout: 15_000 });
      await expect.poll(() => announced(host, "Ada Attendee raised their hand"), { timeout: 5_000 }).toBe(1);
      // The host sees the raised hands first in the list, in the order raised.
      await expect.poll(() => peopleInOrder(host), { timeout: 10_000 }).toEqual(["Walk-in Guest", "Ada Attendee", "Hanna Host"]);
      expect(await peopleOf(host).getByRole("button", { name: "Lower Walk-in Guest's hand (raised 1st)" }).count()).toBe(1);
      // The guest's own control now lowers it.
      expect(await guest.getByRole("button", { name: "Lower hand" }).count()).toBe(1);
      await shot(host, "hands-raised-desktop");
      await shot(guest, "hands-raised-phone");
      await ada.getByRole("button", { name: "Shortcuts" }).click();
      expect(await ada.getByRole("dialog", { name: "Keyboard shortcuts" }).getByText("Raise or lower your hand").count()).toBe(1);
      await ada.keyboard.press("Escape");

      // A participant that asks the media server itself to set its `hand` attribute is refused
      // (nobody's grant may update their own attributes), and nobody's page shows that hand.
      const forgerLink = new URL(await personalLink({ email: "host@example.com" })).hash.replace("#link=", "");
      const grant = (await (
        await callApi(apiBase(fixture.stack), "POST", `/meeting/${meetingId}/join`, { body: { displayName: "Mallory Forger", link: forgerLink } })
      ).json()) as { token: string; serverUrl: string; participantId: string };
      const forged = await forgeOwnAttributes(grant.serverUrl, grant.token, { hand: "1" });
      try {
        expect(forged.reason).toBe(RequestResponse_Reason.NOT_ALLOWED);
        await peopleOf(host).getByText("Mallory Forger").waitFor({ timeout: 15_000 });
        await holdStill(2_000, "to show that the forged hand never reaches the others");
        expect(await tileOf(host, grant.participantId).locator("[data-hand]").count()).toBe(0);
        expect(await tileOf(host, grant.participantId).getAttribute("data-hand")).toBeNull();
        await expect.poll(() => peopleInOrder(host)).toEqual(["Walk-in Guest", "Ada Attendee", "Hanna Host", "Mallory Forger"]);
      } finally {
        forged.close();
      }

      // Nobody raises another's hand; only a host lowers another's.
      expect((await roomCall(guestSession(), "POST", `/participants/${adaId}/hand`, { raised: true })).status).toBe(403);
      expect((await roomCall(guestSession(), "POST", `/participants/${adaId}/hand`, { raised: false })).status).toBe(403);
      // The host lowers the guest's hand from the list; the guest lowers nothing more. Ada lowers her own.
      await peopleOf(host).getByRole("button", { name: "Lower Walk-in Guest's hand (raised 1st)" }).click();
      await guest.getByRole("button", { name: "Raise hand" }).waitFor({ timeout: 10_000 });
      await tileOf(host, adaId).getByRole("img", { name: "Hand raised, 1st" }).waitFor({ timeout: 10_000 });
      await ada.getByRole("button", { name: "Lower hand" }).click();
      await expect.poll(() => host.locator("li.tile[data-hand]").count(), { timeout: 10_000 }).toBe(0);
    },
  );

  it("reactions float over the sender's tile for the others, are announced politely, and a flood is limited by the server", { timeout: 120_000 }, async () => {
    await guest.getByRole("button", { name: "React" }).click();
    await guest.getByRole("group", { name: "Reactions" }).getByRole("button", { name: "Thumbs up" }).click();
    for (const page of [host, ada]) {
      await tileOf(page, guestId).locator(".tile-reaction", { hasText: "👍" }).waitFor({ timeout: 10_000 });
      await expect.poll(() => announced(page, "Walk-in Guest reacted: Thumbs up"), { timeout: 5_000 }).toBe(1);
    }
    await shot(host, "reaction-desktop");
    await shot(guest, "reaction-phone");
    // Once the picker is closed, the reaction is gone after a few seconds.
    await guest.keyboard.press("Escape");
    await expect.poll(() => tileOf(host, guestId).locator(".tile-reaction").count(), { timeout: 10_000 }).toBe(0);

    // A flood straight at the API: the server relays five per ten seconds per person and refuses the
    // rest. Sent by Ada, who has not reacted yet, so the window starts at the flood's first call
    // (the guest's window started at the Thumbs up; a flood of theirs under load once straddled its end).
    const answers = [];
    for (let sent = 0; sent < 10; sent += 1) answers.push(await roomCall(adaSession(), "POST", "/reactions", { emoji: "🎉" }));
    const relayed = answers.filter((answer) => answer.status === 202).length;
    const refused = answers.filter((answer) => answer.status === 429);
    expect(relayed).toBe(5);
    expect(refused.length).toBe(5);
    expect(Number(refused[0]!.headers.get("retry-after"))).toBeGreaterThan(0);
    await expect.poll(() => tileOf(host, adaId).locator(".tile-reaction").count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await tileOf(host, adaId).locator(".tile-reaction").count()).toBeLessThanOrEqual(5);
    // Only the fixed set.
    expect((await roomCall(guestSession(), "POST", "/reactions", { emoji: "<b>" })).status).toBe(400);
  });

  it("speaker view shows one person large beside the others; a pin is one's own", { timeout: 120_000 }, async () => {
    expect(await stageLayout(host)).toBe("grid");
    await host.getByRole("button", { name: "Speaker view" }).click();
    await expect.poll(() => stageLayout(host)).toBe("speaker");
    expect(await host.getByRole("button", { name: "Speaker view" }).getAttribute("aria-pressed")).toBe("true");
    const featured = await featuredIds(host);
    expect(featured).toHaveLength(1);
    expect(featured[0], "someone else than oneself is large").not.toBe(await ownId(host));
    await shot(host, "speaker-view-desktop");
    await guest.getByRole("button", { name: "Speaker view" }).click();
    await expect.poll(() => stageLayout(guest)).toBe("speaker");
    await shot(guest, "speaker-view-phone");
    await guest.getByRole("button", { name: "Speaker view" }).click();
    await expect.poll(() => stageLayout(guest)).toBe("grid");

    // The host pins the guest, for themselves only.
    await host.getByRole("button", { name: "Speaker view" }).click();
    await expect.poll(() => stageLayout(host)).toBe("grid");
    await more(host, "Walk-in Guest");
    await host.getByRole("button", { name: "Pin Walk-in Guest for me" }).click();
    await expect.poll(() => featuredIds(host)).toEqual([guestId]);
    expect(await tileOf(host, guestId).locator(".tile-badge").textContent()).toBe("Pinned");
    await holdStill(1_000, "to show that a pin changes nobody else's stage");
    expect(await stageLayout(ada)).toBe("grid");
    await shot(host, "pinned-desktop");
    await more(host, "Walk-in Guest");
    await host.getByRole("button", { name: "Unpin Walk-in Guest" }).click();
    await expect.poll(() => stageLayout(host)).toBe("grid");
  });

  it("a host spotlights someone for everyone; nobody else may", { timeout: 120_000 }, async () => {
    expect((await roomCall(guestSession(), "POST", "/spotlight", { participantId: guestId })).status).toBe(403);
    await more(ada, "Walk-in Guest");
    await ada.getByRole("button", { name: "Spotlight Walk-in Guest for everyone" }).click();
    for (const page of [host, ada, guest]) {
      await expect.poll(() => featuredIds(page), { timeout: 10_000 }).toEqual([guestId]);
      expect(await tileOf(page, guestId).locator(".tile-badge").textContent()).toBe("Spotlight");
    }
    await expect.poll(() => announced(host, "Walk-in Guest is in the spotlight"), { timeout: 5_000 }).toBe(1);
    await shot(guest, "spotlight-phone");
    await more(host, "Walk-in Guest");
    await host.getByRole("button", { name: "End the spotlight on Walk-in Guest" }).click();
    for (const page of [host, ada, guest]) await expect.poll(() => stageLayout(page), { timeout: 10_000 }).toBe("grid");
  });

  it("each tile shows the media server's measure of that person's connection, with an accessible name", { timeout: 120_000 }, async () => {
    for (const [page, id] of [
      [host, guestId],
      [host, adaId],
      [guest, adaId],
    ] as const) {
      await tileOf(page, id).getByRole("img", { name: "Connection: good" }).waitFor({ timeout: 30_000 });
      expect(await tileOf(page, id).getAttribute("data-quality")).toBe("good");
    }
  });
  // Chromium's network emulation does not reach WebRTC's UDP: Pat's page reaches the media server
  // only over TCP through a relay that loses what the test says (test/support/media-relay.ts).
  it(
    "a poor connection: the others see that person's badge turn poor, then lost, then good again; the person sees a banner saying what helps",
    { timeout: 240_000 },
    async () => {
      const relay = await startMediaRelay();
      try {
        const created = (await (await api("POST", "/meeting", { title: "Commute call", start: new Date().toISOString() })).json()) as { url: string };
        const olga = (await person()).page;
        await openAndJoin(olga, created.url, "Olga Office");
        await inRoom(olga);
        const patContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
        contexts.push(patContext);
        await relay.carry(patContext);
        const pat = await patContext.newPage();
        await openAndJoin(pat, created.url, "Pat Train");
        await inRoom(pat);
        const patId = await ownId(pat);
        const patBadge = (quality: string) => tileOf(olga, patId).getByRole("img", { name: `Connection: ${quality}` });
        const patBanner = pat.getByRole("status").filter({ hasText: "Your connection is" });

        await patBadge("good").waitFor({ timeout: 45_000 });
        expect(relay.mediaPacketsSeen(), "Pat's media takes the relay's path").toBeGreaterThan(0);
        expect(await patBanner.count()).toBe(0);

        // Three packets of four lost on the way up: the media server rates Pat's connection poor,
        // everyone sees it on Pat's tile, and Pat is told what helps.
        relay.set("lossy");
        await patBadge("poor").waitFor({ timeout: 45_000 });
        await patBanner.filter({ hasText: "Your connection is poor. Turn off your camera so that the others keep hearing you." }).waitFor({ timeout: 15_000 });
        await shot(olga, "connection-poor-desktop");
        await shot(pat, "connection-poor-banner-phone");
        await olga.setViewportSize({ width: 390, height: 844 });
        await shot(olga, "connection-poor-phone");
        await olga.setViewportSize({ width: 1280, height: 800 });
        await patBanner.getByRole("button", { name: "Turn off camera" }).click();
        await patBanner.filter({ hasText: "Others may hear you with gaps" }).waitFor({ timeout: 10_000 });
        expect(await patBanner.getByRole("button", { name: "Turn off camera" }).isVisible()).toBe(false);
        const patCamera = pat.getByRole("group", { name: "Meeting controls" }).getByRole("button", { name: "Camera", exact: true });
        await expect.poll(() => patCamera.getAttribute("aria-pressed"), { timeout: 10_000 }).toBe("false");

        // Nothing of Pat's gets through any more (the connection itself stays up): lost.
        relay.set("media-lost");
        await patBadge("lost").waitFor({ timeout: 45_000 });
        await patBanner.filter({ hasText: "Your connection is lost for the moment: the others neither see nor hear you." }).waitFor({ timeout: 15_000 });
        expect(await tileOf(olga, patId).getAttribute("data-quality")).toBe("lost");
        await shot(olga, "connection-lost-desktop");
        await shot(pat, "connection-lost-banner-phone");

        // The link recovers: good again, and the banner is gone.
        relay.set("clear");
        await patBadge("good").waitFor({ timeout: 45_000 });
        await expect.poll(() => patBanner.count(), { timeout: 15_000 }).toBe(0);
      } finally {
        await relay.close();
      }
    },
  );
});
