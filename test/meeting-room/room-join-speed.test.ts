import { mkdirSync } from "node:fs";
import type { Browser, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { launchChromium } from "../support/chromium.ts";
import { openRoomPage } from "../support/meeting-room-browser.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { holdStill } from "../support/hold-still.ts";

/**
 * Joining in a second (issue #44, docs/meeting-room.md "Joining fast"): the room page as
 * production users get it (minified, precompressed, immutable hashed assets, source maps apart),
 * and the join prepared during the pre-join (the grant asked for as soon as the name is known,
 * LiveKit's prepareConnection, a refresh while the person lingers), in real Chromium against a
 * stack with its own LiveKit server. Join tokens live 10 s here, the shortest allowed, so that
 * lingering past a token's life takes seconds.
 */

const SHOTS = process.env.MEETING_ROOM_SHOTS_DIR ?? "/tmp/room-shots";
const shot = async (page: Page, name: string) => {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
};

const TOKEN_TTL_SECONDS = 10;
const fixture = useStack({ media: true, env: { JOIN_TOKEN_TTL_SECONDS: String(TOKEN_TTL_SECONDS) } });
let tenant: Tenant;
let browser: Browser;
beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
  browser = await launchChromium({ fakeMedia: true });
});
afterAll(async () => browser?.close());

async function createMeeting(body: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
  const response = await callApi(apiBase(fixture.stack), "POST", "/meeting", { key: tenant.apiKey, body: { title: "Join speed", ...body } });
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string; url: string };
}

/** The join-grant requests and the requests to the media server's HTTP origin (prepareConnection), in order. */
function watchJoinTraffic(page: Page) {
  const livekit = new URL(fixture.stack.env.LIVEKIT_PUBLIC_URL!);
  const grants: Request[] = [];
  const mediaServer: Request[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (request.method() === "POST" && url.pathname.endsWith("/join")) grants.push(request);
    if (url.protocol === "http:" && url.host === livekit.host) mediaServer.push(request);
  });
  return { grants, mediaServer };
}

const controls = (page: Page) => page.getByRole("group", { name: "Meeting controls" });

describe("the room page's assets, as production serves them", () => {
  it("are minified, content-hashed, immutable and precompressed, with the source map served apart and not loaded with the page", async () => {
    const { url } = await createMeeting();
    // A first visit (an empty cache), watched from the first request.
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => void (message.type() === "error" && problems.push(message.text())));
    const assets = new Map<string, { headers: Record<string, string>; encodedBytes: number; body: string }>();
    page.on("response", (response) => {
      const path = new URL(response.url()).pathname;
      if (!path.startsWith("/assets/")) return;
      void (async () => {
        const body = (await response.body()).toString("utf8");
        const sizes = await response.request().sizes();
        assets.set(path, { headers: response.headers(), encodedBytes: sizes.responseBodySize, body });
      })();
    });
    await page.goto(url);
    await page.getByLabel("Your name").waitFor();
    await expect.poll(() => assets.size).toBeGreaterThanOrEqual(2);
    const script = [...assets].find(([path]) => /^\/assets\/meeting-room-[A-Z0-9]{8}\.js$/.test(path));
    const style = [...assets].find(([path]) => /^\/assets\/meeting-room-[A-Z0-9]{8}\.css$/.test(path));
    expect(script, [...assets.keys()].join(", ")).toBeDefined();
    expect(style).toBeDefined();
    for (const [path, asset] of [script!, style!]) {
      expect(asset.headers["cache-control"], path).toBe("public, max-age=31536000, immutable");
      // Chromium asks plain-HTTP origins for gzip (brotli over HTTPS only): the build's variant.
      expect(asset.headers["content-encoding"], path).toMatch(/^(br|gzip)$/);
      expect(asset.encodedBytes, path).toBeLessThan(asset.body.length / 3);
    }
    const [scriptPath, { body }] = script!;
    // Minified: long lines (a few, from template literals), not the sources' indented thousands.
    expect(body.length / body.split("\n").length).toBeGreaterThan(2_000);
    expect(body.trimEnd().endsWith(`//# sourceMappingURL=${scriptPath.slice("/assets/".length)}.map`)).toBe(true);
    // The map is not part of the page load: developer tools fetch it when opened.
    expect([...assets.keys()].filter((path) => path.endsWith(".map"))).toEqual([]);
    const map = await fetch(`${fixture.stack.gatewayUrl}${scriptPath}.map`, { headers: { "accept-encoding": "br" } });
    expect(map.status).toBe(200);
    expect(map.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(map.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(map.headers.get("content-encoding")).toBe("br");
    expect(((await map.json()) as { sources: string[] }).sources.some((source) => source.includes("meeting-room/prejoin-view.ts"))).toBe(true);
    expect(problems.filter((problem) => /Content Security Policy/i.test(problem))).toEqual([]);
    await context.close();
  });
});

describe("joining with the connection prepared during the pre-join", () => {
  it("asks for the grant when the name is typed and warms the media server's connection, so Join only connects", async () => {
    const { url } = await createMeeting();
    const { page, problems } = await openRoomPage(browser, url);
    const traffic = watchJoinTraffic(page);
    await page.getByLabel("Your name").fill("Grace");
    // A pause in typing: the grant is asked for, and LiveKit's prepareConnection reaches the media server.
    await expect.poll(() => traffic.grants.length).toBe(1);
    await expect.poll(() => traffic.mediaServer.length).toBeGreaterThanOrEqual(1);
    expect(traffic.mediaServer[0]!.method()).toBe("HEAD");
    expect(await page.getByRole("heading", { name: "Ready to join?" }).count()).toBe(1); // nobody is in the room yet
    await shot(page, "21-prejoin-prepared");
    await page.getByRole("button", { name: /^Join/ }).click();
    await controls(page).waitFor();
    expect(traffic.grants).toHaveLength(1); // the prepared grant, not a second one
    expect(problems.filter((problem) => /Content Security Policy/i.test(problem))).toEqual([]);
    await page.close();
  });

  it("with a name remembered from last time, asks at page open; a name changed before Join asks again, for that name", async () => {
    const { url } = await createMeeting();
    const { page } = await openRoomPage(browser, url);
    await page.evaluate(() => localStorage.setItem("svc.meeting.displayName", "Ada"));
    const traffic = watchJoinTraffic(page);
    await page.reload();
    await expect.poll(() => traffic.grants.length).toBe(1);
    expect(traffic.grants[0]!.postDataJSON()).toMatchObject({ displayName: "Ada" });
    await page.getByLabel("Your name").fill("Ada Lovelace");
    await page.getByRole("button", { name: /^Join/ }).click();
    await controls(page).waitFor();
    expect(traffic.grants.map((request) => (request.postDataJSON() as { displayName: string }).displayName)).toEqual(["Ada", "Ada Lovelace"]);
    await expect.poll(() => page.locator("li.tile[data-local]").textContent()).toContain("Ada Lovelace");
    await page.close();
  });

  it("refreshes the grant while the person lingers past its life, and joins with the fresh one", async () => {
    const { url } = await createMeeting();
    const { page } = await openRoomPage(browser, url);
    const traffic = watchJoinTraffic(page);
    await page.getByLabel("Your name").fill("Linus");
    await expect.poll(() => traffic.grants.length).toBe(1);
    // Two thirds of the 10 s life: asked again, without a click.
    await expect.poll(() => traffic.grants.length, { timeout: TOKEN_TTL_SECONDS * 1_000 }).toBe(2);
    await expect.poll(() => traffic.grants.length, { timeout: TOKEN_TTL_SECONDS * 1_000 }).toBe(3);
    // The first grant's token has expired by now; the join uses the latest one, asked a moment ago.
    await page.getByRole("button", { name: /^Join/ }).click();
    await controls(page).waitFor();
    expect(traffic.grants).toHaveLength(3);
    await page.close();
  });

  it("with the meeting's lobby on, asks nothing before Join (that would seat the person in the lobby)", async () => {
    const { url } = await createMeeting({ lobby: true });
    const { page } = await openRoomPage(browser, url);
    const traffic = watchJoinTraffic(page);
    await page.getByLabel("Your name").fill("Waiting Wanda");
    await holdStill(2_000, "three typing pauses' time: a meeting without a lobby would have asked for the grant by now");
    expect(traffic.grants).toEqual([]);
    await page.getByRole("button", { name: /^Join/ }).click();
    await page.getByRole("heading", { name: "Waiting to be let in" }).waitFor();
    expect(traffic.grants).toHaveLength(1);
    await page.close();
  });
});
