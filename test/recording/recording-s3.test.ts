import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { holdStill } from "../support/hold-still.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { recorderActive } from "../support/recorder-active.ts";
import { apiBase, callApi, readResponse } from "../support/rest-client.ts";
import { startS3Server, type RunningS3Server } from "../support/s3-server.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";

// Recordings in S3-compatible object storage (RECORDING_STORAGE=s3): LiveKit Egress uploads the
// file itself, the meeting service serves it back with ranged GETs and deletes it. The server is a
// real one (versitygw, scripts/s3-server), on a temporary folder.
const run = promisify(execFile);

let s3: RunningS3Server;
let browser: Browser;
let tenant: Tenant;

// The S3 server first (a build of a few minutes on a cold cache): the stack's settings name it.
beforeAll(async () => {
  s3 = await startS3Server();
}, 1_200_000);
afterAll(async () => {
  await s3?.stop();
});
const fixture = useStack(() => ({ recording: true, env: { ...s3.env, RECORDING_LINK_SECRET: "recording-s3-test-secret-with-32-characters-or-more" } }));

beforeAll(async () => {
  browser = await launchChromium({ fakeMedia: true });
  tenant = await createTenant(fixture.stack);
}, 900_000);
afterAll(async () => {
  await browser?.close();
});

const api = (method: string, route: string, body?: unknown) =>
  callApi(apiBase(fixture.stack), method, route, { key: tenant.apiKey, ...(body === undefined ? {} : { body }) }).then(readResponse);

describe("recordings in S3-compatible storage", () => {
  it("the recorder uploads to the bucket; the access link serves the object with ranges; DELETE removes the object", { timeout: 240_000 }, async () => {
    const meeting = (await api("POST", "/meeting", { title: "S3 recording", recording: "manual" })).body as { id: string; url: string };
    const page = await joinMeeting(browser, meeting.url, "Sam");
    const started = await api("POST", `/meeting/${meeting.id}/recordings`, { layout: "audio" });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const recordingId = started.body.id as string;
    const startedAt = await recorderActive(fixture.stack, recordingId);
    await holdStill(8_000, "eight seconds of audio");
    expect((await api("POST", `/recordings/${recordingId}/stop`)).status).toBe(200);
    const recordedSeconds = (Date.now() - startedAt) / 1_000;
    await waitFor(
      async () => !["recording", "processing"].includes((await api("GET", `/recordings/${recordingId}`)).body.status),
      120_000,
      "the recording is finished",
    );
    const recording = (await api("GET", `/recordings/${recordingId}`)).body;
    expect(recording.status, recording.error).toBe("ready");

    // In the bucket, not in the local recordings folder.
    const object = path.join(s3.dir, s3.bucket, `${recordingId}.mp4`);
    expect(existsSync(object)).toBe(true);
    expect(readdirSync(fixture.stack.recording!.dir).filter((name) => name.startsWith(recordingId))).toEqual([]);
    const head = await s3.client.fetch(`${s3.endpoint}/${s3.bucket}/${recordingId}.mp4`, { method: "HEAD" });
    expect(Number(head.headers.get("content-length"))).toBe(recording.sizeBytes);

    const link = (await api("GET", `/recordings/${recordingId}/access-link`)).body as { downloadLink: string };
    const part = await fetch(link.downloadLink, { headers: { range: "bytes=0-1023" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 0-1023/${recording.sizeBytes}`);
    expect((await part.arrayBuffer()).byteLength).toBe(1024);
    const whole = await fetch(link.downloadLink);
    expect(whole.status).toBe(200);
    const file = path.join(os.tmpdir(), `svc-s3-${recordingId}.mp4`);
    await writeFile(file, Buffer.from(await whole.arrayBuffer()));
    const { stdout } = await run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name:format=duration", "-of", "json", file]);
    const probe = JSON.parse(stdout) as { streams: { codec_name: string }[]; format: { duration: string } };
    expect(probe.streams.map((stream) => stream.codec_name)).toEqual(["aac"]);
    expect(Math.abs(Number(probe.format.duration) - recordedSeconds)).toBeLessThan(3);

    // The recorder's manifest (its EgressInfo as JSON) is uploaded beside the file, and goes with it.
    expect(existsSync(`${object}.json`), "the recorder's manifest is in the bucket").toBe(true);
    expect((await api("DELETE", `/recordings/${recordingId}`)).status).toBe(200);
    expect(existsSync(object)).toBe(false);
    expect(existsSync(`${object}.json`), "the manifest is deleted with the file").toBe(false);
    expect((await s3.client.fetch(`${s3.endpoint}/${s3.bucket}/${recordingId}.mp4`, { method: "HEAD" })).status).toBe(404);
    await page.context().close();
  });
});
