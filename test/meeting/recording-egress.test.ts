import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { EgressClient, EgressStatus, EncodedFileOutput, EncodedFileType, RoomServiceClient, type EgressInfo } from "livekit-server-sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { holdStill } from "../support/hold-still.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { processTree, stillRunning } from "../support/process-tree.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";

// LiveKit Egress as the test stack runs it (scripts/egress-server.ts): beside the stack's media
// server, on their own Redis, supervised. A Chromium participant with a fake camera and microphone
// (a test pattern and a beep) is recorded through LiveKit's Egress API, as the meeting service
// records, and ffprobe checks each file.
const run = promisify(execFile);
const RECORD_SECONDS = 10;
let tenant: Tenant;
let browser: Browser;
let egress: EgressClient;
let rooms: RoomServiceClient;

const fixture = useStack({ recording: true });
beforeAll(async () => {
  browser = await launchChromium({ fakeMedia: true });
  tenant = await createTenant(fixture.stack);
  egress = new EgressClient(fixture.stack.media!.url, fixture.stack.media!.apiKey, fixture.stack.media!.apiSecret);
  rooms = new RoomServiceClient(fixture.stack.media!.url, fixture.stack.media!.apiKey, fixture.stack.media!.apiSecret);
}, 900_000);
afterAll(async () => {
  await browser?.close();
});

/** A meeting with one person in it whose camera and microphone LiveKit has: the room is its id. */
async function meetingWithOnePerson(title: string): Promise<{ room: string; page: Page }> {
  const response = await callApi(apiBase(fixture.stack), "POST", "/meeting", { key: tenant.apiKey, body: { title } });
  const meeting = (await response.json()) as { id: string; url: string };
  const page = await joinMeeting(browser, meeting.url, "Alice");
  await waitFor(
    async () => (await rooms.listParticipants(meeting.id)).some((person) => person.tracks.length >= 2),
    20_000,
    "Alice's camera and microphone are published",
  );
  return { room: meeting.id, page };
}

const egressNow = async (id: string) => (await egress.listEgress({ egressId: id }))[0]!;

/** Waits until the egress is active; a failure says what egress did meanwhile. */
async function untilActive(id: string, what: string) {
  try {
    await waitFor(async () => (await egressNow(id)).status === EgressStatus.EGRESS_ACTIVE, 45_000, `${what} is active`);
  } catch (error) {
    const now = await egressNow(id);
    throw new Error(`${String(error)}: status ${now.status} ${now.error}\n${fixture.stack.recording!.egress.logs().slice(-6_000)}`);
  }
}

/**
 * Starts a room recording into `file`, keeps it ACTIVE for RECORD_SECONDS, stops it, and returns its
 * end with how long it took from the start request to the end (the most the file may hold).
 */
async function record(room: string, file: string, layout: "grid" | "audio"): Promise<{ info: EgressInfo; spanSeconds: number }> {
  const output = new EncodedFileOutput({ fileType: EncodedFileType.MP4, filepath: file });
  const asked = Date.now();
  const started = await egress.startRoomCompositeEgress(room, output, layout === "audio" ? { audioOnly: true } : { layout: "grid" });
  await untilActive(started.egressId, `the ${layout} recording`);
  await holdStill(RECORD_SECONDS * 1_000, "the recording's length (what ffprobe then measures)");
  await egress.stopEgress(started.egressId);
  await waitFor(async () => (await egressNow(started.egressId)).status >= EgressStatus.EGRESS_COMPLETE, 30_000, `the ${layout} recording ends`);
  return { info: await egressNow(started.egressId), spanSeconds: (Date.now() - asked) / 1000 };
}

interface Probe {
  streams: { codec_type: string; codec_name: string; width?: number; height?: number }[];
  format: { duration: string };
}

async function probe(file: string): Promise<Probe> {
  const { stdout } = await run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name,width,height:format=duration", "-of", "json", file]);
  return JSON.parse(stdout) as Probe;
}

/** The loudest sample of the file's audio in dBFS (-91 is digital silence). */
async function maxVolume(file: string): Promise<number> {
  const { stderr } = await run("ffmpeg", ["-hide_banner", "-nostats", "-i", file, "-vn", "-af", "volumedetect", "-f", "null", "-"]);
  return Number(/max_volume: (-?[\d.]+) dB/.exec(stderr)?.[1]);
}

function expectFinishedFile(info: EgressInfo, file: string) {
  expect(info.status, `${info.error}\n${fixture.stack.recording!.egress.logs().slice(-3_000)}`).toBe(EgressStatus.EGRESS_COMPLETE);
  expect(info.fileResults[0]?.filename).toBe(file);
  expect(statSync(file).size).toBeGreaterThan(10_000);
}

/**
 * The file holds the RECORD_SECONDS the test kept the recording active, and no more than the
 * time from the start request to the recording's end: on a loaded machine the start (egress's
 * Chromium joining) and the stop take seconds, which may go into the file too.
 */
function expectLengthOfRecording(spanSeconds: number, fileSeconds: number) {
  expect(fileSeconds, "the file holds the time the recording was active").toBeGreaterThan(RECORD_SECONDS - 1);
  expect(fileSeconds, `the file is no longer than the ${spanSeconds} s from the start request to the end`).toBeLessThan(spanSeconds + 1);
}

describe("recording with LiveKit Egress beside the media server", () => {
  it("records the room as a grid: H.264 video and AAC audio with sound, as long as it ran", { timeout: 180_000 }, async () => {
    const { room, page } = await meetingWithOnePerson("Grid recording");
    const file = path.join(fixture.stack.recording!.dir, "grid.mp4");
    const { info, spanSeconds } = await record(room, file, "grid");
    expectFinishedFile(info, file);
    const { streams, format } = await probe(file);
    expect(streams.map((stream) => `${stream.codec_type}:${stream.codec_name}`).sort()).toEqual(["audio:aac", "video:h264"]);
    expect(streams.find((stream) => stream.codec_type === "video")).toMatchObject({ width: 1280, height: 720 });
    expectLengthOfRecording(spanSeconds, Number(format.duration));
    expect(await maxVolume(file), "the microphone's beep is in the recording").toBeGreaterThan(-40);
    await page.close();
  });

  it("records the room's audio only: one AAC stream", { timeout: 180_000 }, async () => {
    const { room, page } = await meetingWithOnePerson("Audio recording");
    const file = path.join(fixture.stack.recording!.dir, "audio.mp4");
    const { info, spanSeconds } = await record(room, file, "audio");
    expectFinishedFile(info, file);
    const { streams, format } = await probe(file);
    expect(streams.map((stream) => `${stream.codec_type}:${stream.codec_name}`)).toEqual(["audio:aac"]);
    expectLengthOfRecording(spanSeconds, Number(format.duration));
    expect(await maxVolume(file)).toBeGreaterThan(-40);
    await page.close();
  });

  it("a killed egress takes its recording's processes with it, is restarted, and records again", { timeout: 240_000 }, async () => {
    const supervised = fixture.stack.recording!.egress;
    const { room, page } = await meetingWithOnePerson("Egress crash");
    const doomed = await egress.startRoomCompositeEgress(
      room,
      new EncodedFileOutput({ fileType: EncodedFileType.MP4, filepath: path.join(fixture.stack.recording!.dir, "doomed.mp4") }),
      {
        layout: "grid",
      },
    );
    await untilActive(doomed.egressId, "the recording to be killed");
    const killedPid = supervised.pid()!;
    const before = processTree(killedPid);
    expect(before.length, "egress runs the recording in processes of its own").toBeGreaterThan(1);
    const restartsBefore = supervised.restarts();

    await supervised.kill();
    await waitFor(() => stillRunning(before).length === 0, 10_000, "every process of the killed egress is gone");
    await supervised.ready();
    expect(supervised.restarts()).toBe(restartsBefore + 1);
    expect(supervised.pid()).not.toBe(killedPid);

    const file = path.join(fixture.stack.recording!.dir, "after-restart.mp4");
    const { info } = await record(room, file, "audio");
    expectFinishedFile(info, file);
    expect((await probe(file)).streams.map((stream) => stream.codec_name)).toEqual(["aac"]);
    await page.close();
  });
});
