// What a meeting costs the media server (LiveKit): its CPU and memory with N people in one room,
// each in the product's room page (Chromium, fake camera and microphone: 720p with simulcast, as
// the page publishes), for a minute. The capacity model (test/bench/capacity-model.ts,
// docs/capacity.md) sizes the media servers from it.
//
//   npm run bench -- --only=media      (about 4 minutes: not in the full run)
//   eval "$(bash scripts/infra up)"; scripts/node test/bench/media-cost.ts
//   MEDIA_BENCH_PARTICIPANTS=2,5  MEDIA_BENCH_SECONDS=60
//
// CPU is the media server's own (user + system time from /proc/<pid>/stat), memory its RSS. The
// traffic it handles is read from the pages' own WebRTC statistics: bytes the pages sent (into the
// media server) and received (forwarded by it). On a shared 2-core machine the browsers' encoders
// get less CPU than a person's laptop, so they send less than people do: the model scales the
// media server's CPU by the traffic, which this table records beside it.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setTimeout as delay } from "node:timers/promises";
import type { Page } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { inboundMedia, joinMeeting } from "../support/meeting-room-browser.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { startStack } from "../support/stack.ts";
import { createTenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { formatMediaCostTable, type MediaCost } from "./cost-tables.ts";
import { cpuMs } from "./process-cpu.ts";

const participantCounts = (process.env.MEDIA_BENCH_PARTICIPANTS ?? "2,5").split(",").map(Number);
const seconds = Number(process.env.MEDIA_BENCH_SECONDS ?? 60);
/** After every page receives everyone's video: simulcast layers and bandwidth estimates settle. */
const SETTLE_SECONDS = 10;
/** The media server's CPU with nobody in it, before each room fills (the last room's people gone). */
const IDLE_SECONDS = 10;

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;

/** Bytes a page's peer connections sent and received so far (RTP payload and headers, as WebRTC counts them). */
function trafficBytes(page: Page): Promise<{ sent: number; received: number }> {
  return page.evaluate(async () => {
    const connections = (window as unknown as { __peerConnections: RTCPeerConnection[] }).__peerConnections;
    let sent = 0;
    let received = 0;
    for (const connection of connections) {
      if (connection.connectionState === "closed") continue;
      (await connection.getStats()).forEach(
        (report: { type: string; bytesSent?: number; bytesReceived?: number; headerBytesReceived?: number; headerBytesSent?: number }) => {
          if (report.type === "outbound-rtp") sent += (report.bytesSent ?? 0) + (report.headerBytesSent ?? 0);
          if (report.type === "inbound-rtp") received += (report.bytesReceived ?? 0) + (report.headerBytesReceived ?? 0);
        },
      );
    }
    return { sent, received };
  });
}

async function totalTraffic(pages: Page[]) {
  const each = await Promise.all(pages.map(trafficBytes));
  return { sent: each.reduce((sum, one) => sum + one.sent, 0), received: each.reduce((sum, one) => sum + one.received, 0) };
}

/** Measures a room of each size in turn on one stack with a media server; returns one entry per size. */
export async function measureMediaCost(log: (message: string) => void = (message) => process.stderr.write(`media: ${message}\n`)): Promise<MediaCost[]> {
  const stack = await startStack({ media: true });
  const browser = await launchChromium({ fakeMedia: true });
  const results: MediaCost[] = [];
  try {
    const tenant = await createTenant(stack);
    const mediaPid = stack.media!.process.pid!;
    for (const participants of participantCounts) {
      const created = await callApi(apiBase(stack), "POST", "/meeting", { key: tenant.apiKey, body: { title: `Media cost, ${participants} people` } });
      const meeting = (await created.json()) as { url: string };
      const idleRss = rssMiB(mediaPid);
      const idleCpuBefore = cpuMs(mediaPid);
      await delay(IDLE_SECONDS * 1000);
      const idleCores = (cpuMs(mediaPid) - idleCpuBefore) / (IDLE_SECONDS * 1000);
      log(`${participants} people joining`);
      const pages: Page[] = [];
      for (let index = 0; index < participants; index++) pages.push(await joinMeeting(browser, meeting.url, `Person ${index + 1}`));
      // Everyone decodes video from everyone else before the measurement starts.
      await waitFor(
        async () =>
          (await Promise.all(pages.map(inboundMedia))).every((media) => media.videoFramesByTrack.filter((frames) => frames > 0).length >= participants - 1),
        60_000,
        `each of ${participants} people receives the others' video`,
      );
      await delay(SETTLE_SECONDS * 1000);
      log(`${participants} people: measuring ${seconds} s`);
      const [cpuBefore, trafficBefore, startedAt] = [cpuMs(mediaPid), await totalTraffic(pages), performance.now()];
      await delay(seconds * 1000);
      const [cpuAfter, trafficAfter, elapsedMs] = [cpuMs(mediaPid), await totalTraffic(pages), performance.now() - startedAt];
      const megabitsPerSecond = (bytes: number) => (bytes * 8) / 1e6 / (elapsedMs / 1000);
      results.push({
        participants,
        seconds: elapsedMs / 1000,
        mediaServerCores: (cpuAfter - cpuBefore) / elapsedMs,
        idleCores,
        publishedMbps: megabitsPerSecond(trafficAfter.sent - trafficBefore.sent),
        forwardedMbps: megabitsPerSecond(trafficAfter.received - trafficBefore.received),
        mediaServerRssMiBAboveIdle: rssMiB(mediaPid) - idleRss,
      });
      log(formatMediaCostTable(results.slice(-1)).split("\n")[3]!);
      await Promise.all(pages.map((page) => page.close()));
      // The next room's idle figure without this room's people: the media server drops a closed page's participant at once.
      await delay(3_000);
    }
  } finally {
    await browser.close();
    await stack.stop();
  }
  return results;
}

// Run directly: print the table.
if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(formatMediaCostTable(await measureMediaCost()));
