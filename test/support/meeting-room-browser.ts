import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";

export const screenshotDir = path.join(os.tmpdir(), "svc-meeting-room-shots");

/** What a page receives from the others, from its peer connections' getStats(). */
export interface InboundMedia {
  /** Decoded video frames per remote video stream (by track identifier). */
  videoFramesByTrack: number[];
  audioPackets: number;
}

export interface OpenedPage {
  page: Page;
  status: number;
  /** Console errors (CSP violations are reported there) and uncaught page errors. */
  problems: string[];
}

/**
 * Opens `url` in a new page of its own context (own storage, as a second person's browser),
 * recording every problem the page reports. The page's peer connections are collected by an init
 * script (the page has no test hooks), so tests can read their getStats() as a person's browser
 * would report them (`inboundMedia`).
 */
/** Keeps every RTCPeerConnection the page makes in `window.__peerConnections`, for getStats() (see `inboundMedia`). Before the page loads. */
export async function collectPeerConnections(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const Native = window.RTCPeerConnection;
    const connections: RTCPeerConnection[] = [];
    (window as unknown as { __peerConnections: RTCPeerConnection[] }).__peerConnections = connections;
    window.RTCPeerConnection = class extends Native {
      constructor(configuration?: RTCConfiguration) {
        super(configuration);
        connections.push(this);
      }
    };
  });
}

export async function openRoomPage(browser: Browser, url: string): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("close", () => void context.close().catch(() => undefined));
  await collectPeerConnections(page);
  const response = await page.goto(url);
  return { page, status: response!.status(), problems };
}

/** On the join screen: types a name and presses the join button (its label depends on the devices' state). */
export async function enterAs(page: Page, name: string) {
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: /^Join/ }).click();
}

/** Opens the join URL as a new person, enters the name and waits until the room's controls show. */
export async function joinMeeting(browser: Browser, joinUrl: string, name: string): Promise<Page> {
  const { page } = await openRoomPage(browser, joinUrl);
  await enterAs(page, name);
  await page.getByRole("group", { name: "Meeting controls" }).waitFor({ timeout: 20_000 });
  return page;
}

export async function inboundMedia(page: Page): Promise<InboundMedia> {
  return page.evaluate(async () => {
    const connections = (window as unknown as { __peerConnections: RTCPeerConnection[] }).__peerConnections;
    const videoFramesByTrack: number[] = [];
    let audioPackets = 0;
    for (const connection of connections) {
      if (connection.connectionState === "closed") continue;
      (await connection.getStats()).forEach((report: { type: string; kind?: string; framesDecoded?: number; packetsReceived?: number }) => {
        if (report.type !== "inbound-rtp") return;
        if (report.kind === "video") videoFramesByTrack.push(report.framesDecoded ?? 0);
        if (report.kind === "audio") audioPackets += report.packetsReceived ?? 0;
      });
    }
    return { videoFramesByTrack, audioPackets };
  });
}

/** The remote participants' tiles a page shows (camera tiles, not screen shares). */
export const remoteTiles = (page: Page) => page.locator("li.tile[data-participant-id]:not([data-local]):not([data-source])");
