// Joining a meeting, phase by phase, from outside as a person's browser does it (issue #44, "Join
// in a second"): page load → interactive pre-join; Join click → connected; connected → first
// remote video frame. Each phase against its floor, measured in the same run: a bare page with
// livekit-client alone (floor-page/main.ts) connecting to the same media server and room, with a
// token minted beforehand. Each sample is a fresh browser context (a first visit, empty cache)
// of a returning person (the name remembered from last time), who presses Join either as soon as
// it shows ("at once": what page load → first frame is measured with) or once their camera preview
// shows ("after the preview": a person who looks at themselves first, which is what the pre-join's
// preparation is for; what Join click → first frame is measured with).
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { AccessToken } from "livekit-server-sdk";
import type { Stack } from "../support/stack.ts";
import type { Tenant } from "../support/tenants.ts";
import { launchChromium } from "../support/chromium.ts";
import { collectPeerConnections, joinMeeting } from "../support/meeting-room-browser.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { percentiles } from "./load.ts";
import type { Row } from "./row.ts";

const SAMPLES = Number(process.env.BENCH_JOIN_SAMPLES ?? 5);
const TIMEOUT_MS = 30_000;

export interface JoinPhases {
  pageToPreJoin: number;
  joinToConnected: number;
  connectedToFrame: number;
}

/** Resolves when the page has decoded its first remote video frame (its peer connections' getStats, every 5 ms). */
async function firstFrame(page: Page): Promise<void> {
  await page.evaluate(async (timeoutMs) => {
    const connections = (window as unknown as { __peerConnections: RTCPeerConnection[] }).__peerConnections;
    const until = performance.now() + timeoutMs;
    while (performance.now() < until) {
      for (const connection of connections) {
        let decoded = 0;
        (await connection.getStats()).forEach((report: { type: string; kind?: string; framesDecoded?: number }) => {
          if (report.type === "inbound-rtp" && report.kind === "video") decoded += report.framesDecoded ?? 0;
        });
        if (decoded > 0) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error("no remote video frame");
  }, TIMEOUT_MS);
}

/** A fresh context's page that records its peer connections, with `name` remembered as the last display name. */
async function freshPage(browser: Browser, name: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript((remembered) => localStorage.setItem("svc.meeting.displayName", remembered), name);
  const page = await context.newPage();
  await collectPeerConnections(page);
  return page;
}

type JoinMoment = "at once" | "after the preview";

async function roomSample(browser: Browser, url: string, name: string, moment: JoinMoment): Promise<JoinPhases> {
  const page = await freshPage(browser, name);
  try {
    const opened = performance.now();
    await page.goto(url, { waitUntil: "commit" });
    const join = page.getByRole("button", { name: /^Join/ });
    await join.waitFor({ timeout: TIMEOUT_MS });
    const interactive = performance.now();
    if (moment === "after the preview") await page.locator("section.prejoin[data-camera='on']").waitFor({ timeout: TIMEOUT_MS });
    const clicked = performance.now();
    await join.click();
    await page.getByRole("group", { name: "Meeting controls" }).waitFor({ timeout: TIMEOUT_MS });
    const connected = performance.now();
    await firstFrame(page);
    const framed = performance.now();
    return { pageToPreJoin: interactive - opened, joinToConnected: connected - clicked, connectedToFrame: framed - connected };
  } finally {
    await page.context().close();
  }
}

async function floorSample(browser: Browser, floorUrl: string, media: { url: string; token: string }): Promise<JoinPhases> {
  const page = await freshPage(browser, "floor");
  try {
    const opened = performance.now();
    await page.goto(floorUrl, { waitUntil: "commit" });
    await page.waitForFunction(() => (window as unknown as { floorReady?: boolean }).floorReady === true, undefined, { polling: "raf", timeout: TIMEOUT_MS });
    const interactive = performance.now();
    await page.evaluate(({ url, token }) => (window as unknown as { join: (url: string, token: string) => Promise<void> }).join(url, token), media);
    const connected = performance.now();
    await firstFrame(page);
    const framed = performance.now();
    return { pageToPreJoin: interactive - opened, joinToConnected: connected - interactive, connectedToFrame: framed - connected };
  } finally {
    await page.context().close();
  }
}

/** Serves the floor page: its HTML and its script, livekit-client bundled and minified like the room's. */
async function startFloorServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const { build } = await import("esbuild");
  const bundle = await build({
    entryPoints: [path.join(import.meta.dirname, "floor-page", "main.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["chrome109"],
    minify: true,
    write: false,
    logLevel: "silent",
  });
  const script = bundle.outputFiles[0]!.contents;
  const page =
    '<!doctype html><html><head><meta charset="utf-8"><title>floor</title><script type="module" src="/floor.js"></script></head><body></body></html>';
  const server = http.createServer((req, res) => {
    if (req.url === "/floor.js") res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * SAMPLES joins of the meeting room and of the floor page, alternating, into a meeting where a
 * presenter sends video; the medians per phase.
 */
export interface JoinPhaseSamples {
  atOnce: JoinPhases[];
  afterPreview: JoinPhases[];
  floor: JoinPhases[];
}

export async function measureJoinPhases(stack: Stack, tenant: Tenant): Promise<JoinPhaseSamples> {
  const created = await callApi(apiBase(stack), "POST", "/meeting", { key: tenant.apiKey, body: { title: "Join phases" } });
  const meeting = (await created.json()) as { id: string; url: string };
  const browser = await launchChromium({ fakeMedia: true });
  const floorServer = await startFloorServer();
  const media = stack.media!;
  try {
    await joinMeeting(browser, meeting.url, "Presenter");
    const samples: JoinPhaseSamples = { atOnce: [], afterPreview: [], floor: [] };
    // One of each first, not counted: the media server's and the browser's first-time costs.
    for (let sample = -1; sample < SAMPLES; sample++) {
      const token = new AccessToken(media.apiKey, media.apiSecret, { identity: `floor-${sample + 1}`, ttl: 300 });
      // The rights a join grant gives (services/meeting/src/room/join-grants.ts), so that the connection does the same work.
      token.addGrant({ room: meeting.id, roomJoin: true, canSubscribe: true, canPublish: true, canPublishData: false });
      const floor = await floorSample(browser, floorServer.url, { url: media.publicUrl, token: await token.toJwt() });
      const atOnce = await roomSample(browser, meeting.url, `Viewer ${sample + 1}a`, "at once");
      const afterPreview = await roomSample(browser, meeting.url, `Viewer ${sample + 1}b`, "after the preview");
      if (sample < 0) continue;
      samples.floor.push(floor);
      samples.atOnce.push(atOnce);
      samples.afterPreview.push(afterPreview);
    }
    return samples;
  } finally {
    await floorServer.close();
    await browser.close();
  }
}

const median = (values: number[]) => percentiles(values).p50Ms;
const listed = (values: number[]) => values.map((ms) => ms.toFixed(0)).join(", ");

const total = (sample: JoinPhases) => sample.pageToPreJoin + sample.joinToConnected + sample.connectedToFrame;
const fromJoin = (sample: JoinPhases) => sample.joinToConnected + sample.connectedToFrame;

/** The bench's rows: each phase with its floor, and the two goals of issue #44. */
export function joinPhaseRows({ atOnce, afterPreview, floor }: JoinPhaseSamples): Row[] {
  const phase = (scenario: string, ours: number[], bare: number[], extra = ""): Row => ({
    scenario: `meeting room: ${scenario}`,
    p50Ms: median(ours),
    ceiling: "bare livekit-client page",
    note: `floor ${median(bare).toFixed(0)} ms (ours ${(median(ours) / median(bare)).toFixed(1)}× it); samples ${listed(ours)}; floor ${listed(bare)}${extra}`,
  });
  return [
    phase(
      "page load → interactive pre-join",
      atOnce.map((sample) => sample.pageToPreJoin),
      floor.map((sample) => sample.pageToPreJoin),
    ),
    phase(
      "Join click → connected (after the preview)",
      afterPreview.map((sample) => sample.joinToConnected),
      floor.map((sample) => sample.joinToConnected),
      `; clicked at once: ${median(atOnce.map((sample) => sample.joinToConnected)).toFixed(0)} ms`,
    ),
    phase(
      "connected → first remote video frame",
      afterPreview.map((sample) => sample.connectedToFrame),
      floor.map((sample) => sample.connectedToFrame),
    ),
    {
      scenario: "meeting room: page load → first remote video frame (Join clicked at once)",
      p50Ms: median(atOnce.map(total)),
      goal: "≤ 1000 ms",
      met: median(atOnce.map(total)) <= 1_000,
      note: `floor ${median(floor.map(total)).toFixed(0)} ms; samples ${listed(atOnce.map(total))}`,
    },
    {
      scenario: "meeting room: Join click → first remote video frame (after the preview)",
      p50Ms: median(afterPreview.map(fromJoin)),
      goal: "≤ 500 ms",
      met: median(afterPreview.map(fromJoin)) <= 500,
      note: `floor ${median(floor.map(fromJoin)).toFixed(0)} ms; samples ${listed(afterPreview.map(fromJoin))}; clicked at once: ${median(atOnce.map(fromJoin)).toFixed(0)} ms`,
    },
  ];
}
