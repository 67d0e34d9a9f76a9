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
import { RECOMMENDED_GRANTS, startS3Server, type RunningS3Server, type S3Account } from "../support/s3-server.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { subscribeReceiver, useWebhookReceiver } from "../support/webhook-fixtures.ts";

// Recordings in S3-compatible object storage (RECORDING_STORAGE=s3): LiveKit Egress uploads the
// file itself with an upload-only key pair (RECORDING_S3_UPLOAD_*), the meeting service serves it
// back with ranged GETs and deletes it with its own pair (RECORDING_S3_*). The server is a real one
// (versitygw, scripts/s3-server), on a temporary folder, with a bucket policy that grants each
// pair only its part (docs/deploying.md, "Recording").
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
const fixture = useStack(() => ({
  recording: true,
  env: { ...s3.env, LOG_LEVEL: "info", RECORDING_LINK_SECRET: "recording-s3-test-secret-with-32-characters-or-more" },
}));
const receiver = useWebhookReceiver();

beforeAll(async () => {
  browser = await launchChromium({ fakeMedia: true });
  tenant = await createTenant(fixture.stack);
  await subscribeReceiver(fixture.stack, receiver, tenant.apiKey, "/recordings", { events: ["recording.failed"] });
}, 900_000);
afterAll(async () => {
  await browser?.close();
});

const api = (method: string, route: string, body?: unknown) =>
  callApi(apiBase(fixture.stack), method, route, { key: tenant.apiKey, ...(body === undefined ? {} : { body }) }).then(readResponse);

const objectUrl = (key: string) => `${s3.endpoint}/${s3.bucket}/${key}`;
const statusOf = async (account: S3Account, method: string, key: string) => (await account.client.fetch(objectUrl(key), { method })).status;

/** Starts an audio recording of a meeting someone is in, records a few seconds and stops it; its id. */
async function recordBriefly(meeting: { id: string }, seconds: number): Promise<{ recordingId: string; startedAt: number }> {
  // The page is in the room; the meeting is live once the media server's participant_joined has
  // reached the meeting service (seconds later under load), and only a live meeting is recorded.
  await waitFor(async () => (await api("GET", `/meeting/${meeting.id}`)).body.status === "live", 30_000, "the meeting is live");
  const started = await api("POST", `/meeting/${meeting.id}/recordings`, { layout: "audio" });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  const recordingId = started.body.id as string;
  const startedAt = await recorderActive(fixture.stack, recordingId);
  await holdStill(seconds * 1_000, `${seconds} seconds of audio`);
  expect((await api("POST", `/recordings/${recordingId}/stop`)).status).toBe(200);
  return { recordingId, startedAt };
}

describe("recordings in S3-compatible storage", () => {
  it("the recorder uploads to the bucket; the access link serves the object with ranges; DELETE removes the object", { timeout: 240_000 }, async () => {
    const meeting = (await api("POST", "/meeting", { title: "S3 recording", recording: "manual" })).body as { id: string; url: string };
    const page = await joinMeeting(browser, meeting.url, "Sam");
    const { recordingId, startedAt } = await recordBriefly(meeting, 8);
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

    // The pair the recorder was handed can upload and nothing more: it cannot read, measure, list or
    // delete a recording, nor the recorder's manifest. The meeting service's pair reads (below,
    // through the access link) and deletes, and cannot upload.
    for (const key of [`${recordingId}.mp4`, `${recordingId}.mp4.json`])
      for (const method of ["GET", "HEAD", "DELETE"]) expect(await statusOf(s3.uploader, method, key), `the recorder's pair: ${method} ${key}`).toBe(403);
    expect((await s3.uploader.client.fetch(`${s3.endpoint}/${s3.bucket}`)).status, "the recorder's pair lists the bucket").toBe(403);
    expect((await s3.reader.client.fetch(objectUrl(`${recordingId}.extra`), { method: "PUT", body: "x" })).status, "the meeting's pair uploads").toBe(403);
    expect(await statusOf(s3.reader, "HEAD", `${recordingId}.mp4`)).toBe(200);

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

  it(
    "a file the recorder cannot store fails its recording with storage_failed in our words; the recorder's own text is only in our log",
    { timeout: 240_000 },
    async () => {
      const meeting = (await api("POST", "/meeting", { title: "S3 recording refused", recording: "manual" })).body as { id: string; url: string };
      const page = await joinMeeting(browser, meeting.url, "Sam");
      // The bucket stops taking the recorder's uploads (a revoked grant, as a misconfigured policy would).
      await s3.grant({ ...RECOMMENDED_GRANTS, uploader: [] });
      try {
        const { recordingId } = await recordBriefly(meeting, 4);
        await waitFor(
          () => receiver.received.some((request) => request.payload?.type === "recording.failed" && request.payload.data.recordingId === recordingId),
          120_000,
          "recording.failed was delivered",
        );
        const failed = receiver.received.find((request) => request.payload?.type === "recording.failed" && request.payload.data.recordingId === recordingId)!;
        expect(failed.verificationError).toBeUndefined();
        const words = "The recording's file could not be written to the recordings storage";
        expect(failed.payload!.data).toMatchObject({ recordingId, meetingId: meeting.id, errorCode: "storage_failed", error: words });
        const recording = (await api("GET", `/recordings/${recordingId}`)).body;
        expect(recording).toMatchObject({ status: "failed", errorCode: "storage_failed", error: words });
        expect(existsSync(path.join(s3.dir, s3.bucket, `${recordingId}.mp4`))).toBe(false);

        // The recorder's own words (the S3 answer, naming the bucket and the key) reach our log, and
        // neither a tenant nor the log sees a secret.
        const log = fixture.stack.logs("meeting");
        const line = log.split("\n").find((entry) => entry.includes(recordingId) && entry.includes('"recording failed"'));
        expect(line, "the meeting service logs the failure").toBeDefined();
        expect(line).toMatch(/S3 upload failed: AccessDenied/);
        expect(JSON.stringify(failed.payload)).not.toMatch(/AccessDenied|upload failed|svc-recordings/);
        expect(JSON.stringify(recording)).not.toMatch(/AccessDenied|upload failed|svc-recordings/);
        for (const secret of [s3.uploader.secretAccessKey, s3.reader.secretAccessKey])
          expect(log.includes(secret), "a secret in the meeting's log").toBe(false);
      } finally {
        await s3.grant(RECOMMENDED_GRANTS);
        await page.context().close();
      }
    },
  );
});
