import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { JoinRequest, WrappedJoinRequest, WrappedJoinRequest_Compression } from "@livekit/protocol";
import { RoomServiceClient } from "livekit-server-sdk";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MINIMUM_LIVEKIT_CLIENT_VERSION, MINIMUM_LIVEKIT_SERVER_VERSION } from "@svc/platform/contract";
import { startMediaServer, type RunningMediaServer } from "../../scripts/media-server.ts";
import { launchChromium } from "../support/chromium.ts";
import { freePorts } from "../support/infra.ts";
import { enterAs, openRoomPage, screenshotDir } from "../support/meeting-room-browser.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { createTenant } from "../support/tenants.ts";
import { useStack, type StackFixture } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";

/**
 * Which LiveKit the meeting room works with (services/platform/src/contract/media-server.ts): the
 * page is built with a livekit-client at least the documented minimum, and announces it to LiveKit
 * when joining; the meeting service says at start which server it needs; against a server older
 * than the minimum (a real LiveKit 1.8.4, with which this client's publishing times out after 15 s)
 * the page explains the refusal instead of entering a room that breaks.
 */

const root = path.resolve(import.meta.dirname, "../..");
/** The newest LiveKit before the minimum that the Go module proxy builds (scripts/livekit). */
const OLD_LIVEKIT_VERSION = "v1.8.4";

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** major.minor.patch compared as numbers: negative when `version` is older than `minimum`. */
function compareVersions(version: string, minimum: string): number {
  const parts = (text: string) => text.split(".").map((part) => Number.parseInt(part, 10));
  const [a, b] = [parts(version), parts(minimum)];
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return (a[index] ?? 0) - (b[index] ?? 0);
  return 0;
}

/**
 * The livekit-client version a page announced on LiveKit's signalling WebSocket: a query parameter
 * on `/rtc`, or inside the (possibly gzipped) JoinRequest on `/rtc/v1`.
 */
function announcedClientVersion(socketUrl: string): string | undefined {
  const url = new URL(socketUrl);
  const wrapped = url.searchParams.get("join_request");
  if (!wrapped) return url.searchParams.get("version") ?? undefined;
  const envelope = WrappedJoinRequest.fromBinary(Buffer.from(wrapped, "base64url"));
  const bytes = envelope.compression === WrappedJoinRequest_Compression.GZIP ? gunzipSync(envelope.joinRequest) : envelope.joinRequest;
  return JoinRequest.fromBinary(bytes).clientInfo?.version;
}

/** The meeting service's first JSON log line that contains `text`, once it has been written. */
async function meetingLogLine(fixture: StackFixture, text: string): Promise<unknown> {
  const find = () =>
    fixture.stack
      .logs("meeting")
      .split("\n")
      .find((line) => line.startsWith("{") && line.includes(text));
  await waitFor(() => find() !== undefined, 10_000, `the meeting service logged no line with "${text}"`);
  return JSON.parse(find()!);
}

async function createMeeting(fixture: StackFixture, apiKey: string): Promise<string> {
  const response = await callApi(apiBase(fixture.stack), "POST", "/meeting", { key: apiKey, body: { title: "Media server version" } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { url: string }).url;
}

describe("with the current LiveKit (the stack's own, scripts/livekit's version)", () => {
  const fixture = useStack({ media: true, env: { LOG_LEVEL: "info" } });

  it(`the room page is served with livekit-client ${MINIMUM_LIVEKIT_CLIENT_VERSION} or later: the version it announces to LiveKit on joining`, async () => {
    const tenant = await createTenant(fixture.stack);
    const { page } = await openRoomPage(browser, await createMeeting(fixture, tenant.apiKey));
    const mediaHost = new URL(fixture.stack.env.LIVEKIT_PUBLIC_URL!).host;
    const versions: (string | undefined)[] = [];
    page.on("websocket", (socket) => {
      const url = new URL(socket.url());
      if (url.host === mediaHost && url.pathname.startsWith("/rtc")) versions.push(announcedClientVersion(socket.url()));
    });
    await enterAs(page, "Ada");
    await page.getByRole("group", { name: "Meeting controls" }).waitFor({ timeout: 20_000 });
    expect(versions.length).toBeGreaterThan(0);
    for (const version of versions) {
      expect(version, "the livekit-client version the page announced").toMatch(/^\d+\.\d+\.\d+/);
      expect(
        compareVersions(version!, MINIMUM_LIVEKIT_CLIENT_VERSION),
        `livekit-client ${version} is older than ${MINIMUM_LIVEKIT_CLIENT_VERSION}`,
      ).toBeGreaterThanOrEqual(0);
    }
    await page.close();
  });

  it("the documented minimums are the ones the page and the meeting service hold", () => {
    for (const guide of ["docs/deploying.md", "docs/meeting-room.md"]) {
      const text = readFileSync(path.join(root, guide), "utf8");
      expect(text, guide).toContain(`LiveKit server ${MINIMUM_LIVEKIT_SERVER_VERSION} or later`);
      expect(text, guide).toContain(`livekit-client ${MINIMUM_LIVEKIT_CLIENT_VERSION}`);
    }
    expect(readFileSync(path.join(root, "deploy/helm/svc/templates/NOTES.txt"), "utf8")).toContain(`LiveKit server ${MINIMUM_LIVEKIT_SERVER_VERSION} or later`);
  });

  it("the meeting service says at start which LiveKit it needs, and that the configured one serves the current signalling", async () => {
    expect(await meetingLogLine(fixture, "the meeting room needs LiveKit server")).toMatchObject({
      level: 30,
      minimumLivekitVersion: MINIMUM_LIVEKIT_SERVER_VERSION,
      livekitUrl: fixture.stack.env.LIVEKIT_URL,
      msg: expect.stringContaining(`needs LiveKit server ${MINIMUM_LIVEKIT_SERVER_VERSION} or later; LIVEKIT_URL serves its signalling`),
    });
  });
});

describe(`with a LiveKit older than the minimum (${OLD_LIVEKIT_VERSION})`, () => {
  const credentials = { apiKey: `old-${randomBytes(4).toString("hex")}`, apiSecret: randomBytes(32).toString("base64url") };
  let oldServer: RunningMediaServer;
  beforeAll(async () => {
    // Built once from the Go module proxy, like the current one (a few minutes when not cached).
    const { stdout } = await promisify(execFile)("bash", [path.join(root, "scripts/livekit"), "path"], {
      env: { ...process.env, SVC_LIVEKIT_VERSION: OLD_LIVEKIT_VERSION },
    });
    const [port, rtcTcpPort, rtcUdpPort] = await freePorts(3);
    // Its webhooks go nowhere: this block is about the join, which needs none.
    oldServer = await startMediaServer({
      binary: stdout.trim(),
      port: port!,
      rtcTcpPort: rtcTcpPort!,
      rtcUdpPort: rtcUdpPort!,
      ...credentials,
      webhookUrl: `http://127.0.0.1:${port}/nowhere`,
    });
  }, 15 * 60_000);
  afterAll(async () => {
    await oldServer?.stop();
  });
  const fixture = useStack(() => ({
    media: false,
    env: {
      LIVEKIT_URL: oldServer.url,
      LIVEKIT_PUBLIC_URL: oldServer.url.replace(/^http/, "ws"),
      LIVEKIT_API_KEY: credentials.apiKey,
      LIVEKIT_API_SECRET: credentials.apiSecret,
    },
  }));

  it("the meeting service says at start, as an error, that the configured LiveKit is older than the room needs", async () => {
    expect(await meetingLogLine(fixture, "runs an older one")).toMatchObject({
      level: 50,
      minimumLivekitVersion: MINIMUM_LIVEKIT_SERVER_VERSION,
      livekitUrl: oldServer.url,
    });
  });

  it("the page explains the refusal, naming both versions, instead of entering a room whose publishing would time out", async () => {
    const tenant = await createTenant(fixture.stack);
    const joinUrl = await createMeeting(fixture, tenant.apiKey);
    const { page, problems } = await openRoomPage(browser, joinUrl);
    await enterAs(page, "Ada");
    const heading = page.getByRole("heading", { name: "This meeting's media server is out of date" });
    // Far sooner than the 15 s negotiation timeout it replaces.
    await heading.waitFor({ timeout: 10_000 });
    await expect(heading.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    const explanation = await page.locator(".state-unsupported-media-server p").first().textContent();
    expect(explanation).toContain(`It runs LiveKit ${OLD_LIVEKIT_VERSION.slice(1)}`);
    expect(explanation).toContain(`needs LiveKit ${MINIMUM_LIVEKIT_SERVER_VERSION} or later`);
    expect(await page.getByRole("button", { name: "Join again" }).count()).toBe(0);
    expect(await page.getByRole("group", { name: "Meeting controls" }).count()).toBe(0);
    await page.screenshot({ path: path.join(screenshotDir, "media-server-out-of-date.png"), fullPage: true });
    expect(problems.filter((problem) => /Content Security Policy/i.test(problem))).toEqual([]);
    // The page left the room it had connected to: the old server lists nobody in it.
    const rooms = new RoomServiceClient(oldServer.url, credentials.apiKey, credentials.apiSecret);
    const meetingId = new URL(joinUrl).pathname.split("/").pop()!;
    await waitFor(async () => (await rooms.listParticipants(meetingId)).length === 0, 10_000, "the page stayed in the old server's room");
    await page.close();
  });
});
