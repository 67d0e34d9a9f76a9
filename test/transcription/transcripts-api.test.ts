import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { WebVTTParser } from "webvtt-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createPool, type Pool } from "@svc/platform/db";
import { createTranscript, type AudioSource } from "../../services/meeting/src/db/transcription-jobs.ts";
import { apiBase, callApi, readResponse } from "../support/rest-client.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { speak, startTranscriber, stopTranscriber, transcriberPython, wordErrorRate, words, type RunningTranscriber } from "../support/transcription.ts";
import { useResource } from "../support/use-resource.ts";
import { useStack } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";
import { subscribeReceiver, useWebhookReceiver } from "../support/webhook-fixtures.ts";
import type { ReceivedWebhook } from "../support/webhook-receiver.ts";

// Transcripts through the public API (docs/transcription.md, issue 43): the meeting's and the
// organization's `transcription` setting; a transcript of two speakers' own audio tracks, made by
// the real worker with the real model, read through REST (who said what, in time order), as
// WebVTT (parsed by a WebVTT parser) and JSON through signed links, announced by a verified
// `transcript.ready`; another organization sees none of it; DELETE; and `transcript.failed`.
//
// The transcript is created from two espeak-ng tracks with createTranscript, the insert the
// meeting service makes when a recording's speaker tracks are written (speaker-tracks.ts;
// test/transcription/speaker-tracks.test.ts runs that path with Egress).

const audioDir = mkdtempSync(path.join(os.tmpdir(), "svc-transcripts-api-"));
afterAll(() => rmSync(audioDir, { recursive: true, force: true }));

const fixture = useStack({ env: { RECORDING_DIR: audioDir, RECORDING_LINK_SECRET: "transcripts-api-test-secret-with-32-characters-or-more" } });
const receiver = useWebhookReceiver();
const meetingPool = useResource(
  "the meeting schema's pool",
  async (): Promise<Pool> =>
    createPool({ databaseUrl: fixture.stack.databaseUrl, schema: "meeting", logger: createLogger("transcripts-api-test", "silent"), max: 2 }),
  (pool) => pool.end(),
);

// Two people, different sentences; their speech alternates in time (Ada, Bob, Ada, Bob). Bob's
// track starts 5 s into the meeting (he joined later), as its job's offset says.
// The worker's own test speech (everyday words, which the model hears well from espeak-ng).
const SENTENCES = (
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../services/meeting/transcriber/tests/speech.json"), "utf8")) as {
    sentences: { text: string }[];
  }
).sentences.map((sentence) => sentence.text);
const ADA = [SENTENCES[0]!, SENTENCES[2]!];
const BOB = [SENTENCES[1]!, SENTENCES[3]!];

let tenant: Tenant;
let other: Tenant;
let python: string;
const keys = { ada: `${randomUUID()}.wav`, bob: `${randomUUID()}.wav` };

beforeAll(async () => {
  python = transcriberPython();
  speak(path.join(audioDir, keys.ada), `<break time="2s"/>${ADA[0]}<break time="10s"/>${ADA[1]}<break time="2s"/>`);
  speak(path.join(audioDir, keys.bob), `<break time="2s"/>${BOB[0]}<break time="12s"/>${BOB[1]}<break time="2s"/>`);
  [tenant, other] = await Promise.all([createTenant(fixture.stack), createTenant(fixture.stack)]);
  await subscribeReceiver(fixture.stack, receiver, tenant.apiKey, "/transcripts", { events: ["transcript.ready", "transcript.failed"] });
}, 120_000);

const api = (method: string, route: string, options: { key?: string; body?: unknown } = {}) =>
  callApi(apiBase(fixture.stack), method, route, { key: options.key ?? tenant.apiKey, ...(options.body === undefined ? {} : { body: options.body }) }).then(
    readResponse,
  );

async function createMeeting(body: Record<string, unknown>, key = tenant.apiKey): Promise<string> {
  const created = await api("POST", "/meeting", { key, body: { title: "Transcribed", ...body } });
  expect(created.status).toBe(200);
  return created.body.id as string;
}

async function webhookOf(type: string, transcriptId: string): Promise<ReceivedWebhook> {
  let found: ReceivedWebhook | undefined;
  await waitFor(
    () => {
      found = receiver.on("/transcripts").find((request) => request.payload?.type === type && request.payload.data.transcriptId === transcriptId);
      return found !== undefined;
    },
    60_000,
    `${type} was delivered`,
  );
  expect(found!.verificationError).toBeUndefined();
  return found!;
}

/** A transcript made by the real worker from `sources` (audio in the stack's RECORDING_DIR), once it is no longer processing. */
async function transcribe(meetingId: string, sources: AudioSource[]): Promise<string> {
  const transcriptId = await createTranscript(meetingPool(), { meetingId, orgId: tenant.orgId, sources });
  const worker: RunningTranscriber = startTranscriber({ databaseUrl: fixture.stack.databaseUrl, python, audioDir });
  try {
    await waitFor(async () => (await api("GET", `/transcripts/${transcriptId}`)).body.status !== "processing", 240_000, "the transcript was not finished");
  } finally {
    await stopTranscriber(worker, "SIGTERM");
  }
  return transcriptId;
}

interface Segment {
  speaker: string;
  speakerIndex: number;
  start: number;
  end: number;
  text: string;
}

describe("transcripts through the API", () => {
  let meetingId: string;
  let transcriptId: string;

  it("a meeting's transcription setting: off by default, on when asked; the organization's default applies to new meetings only", async () => {
    const plain = await createMeeting({});
    expect((await api("GET", `/meeting/${plain}`)).body.transcription).toBe("off");
    meetingId = await createMeeting({ recording: "auto", transcription: "on", attendees: ["ada@example.com"] });
    expect((await api("GET", `/meeting/${meetingId}`)).body).toMatchObject({ recording: "auto", transcription: "on" });
    expect((await api("PATCH", `/meeting/${plain}`, { body: { transcription: "on" } })).body.transcription).toBe("on");
    expect((await api("PATCH", `/meeting/${plain}`, { body: { transcription: "always" } })).status).toBe(400);

    expect((await api("GET", "/transcription-settings")).body).toEqual({ defaultTranscription: "off" });
    const before = await createMeeting({});
    expect((await api("PUT", "/transcription-settings", { body: { defaultTranscription: "on" } })).body).toEqual({ defaultTranscription: "on" });
    expect((await api("GET", `/meeting/${await createMeeting({})}`)).body.transcription).toBe("on");
    expect((await api("GET", `/meeting/${await createMeeting({ transcription: "off" })}`)).body.transcription).toBe("off");
    expect((await api("GET", `/meeting/${before}`)).body.transcription).toBe("off");
    // Another organization's default is its own.
    expect((await api("GET", "/transcription-settings", { key: other.apiKey })).body).toEqual({ defaultTranscription: "off" });
    expect((await api("GET", `/meeting/${await createMeeting({}, other.apiKey)}`, { key: other.apiKey })).body.transcription).toBe("off");
    expect((await api("PUT", "/transcription-settings", { body: { defaultTranscription: "yes" } })).status).toBe(400);
  });

  it(
    "two speakers' tracks become one transcript that names who said each sentence, in time order, announced by a verified transcript.ready",
    { timeout: 300_000 },
    async () => {
      transcriptId = await transcribe(meetingId, [
        { storage: "filesystem", objectKey: keys.ada, offsetMs: 0, speaker: { displayName: "Ada Lovelace", email: "ada@example.com" } },
        { storage: "filesystem", objectKey: keys.bob, offsetMs: 5_000, speaker: { displayName: "Bob" } },
      ]);
      const { status, body } = await api("GET", `/transcripts/${transcriptId}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({ id: transcriptId, meetingId, status: "ready", language: "en", error: null, errorCode: null });
      expect(body.speakers).toEqual([
        { name: "Ada Lovelace", email: "ada@example.com" },
        { name: "Bob", email: null },
      ]);
      const segments = body.segments as Segment[];
      const starts = segments.map((segment) => segment.start);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
      for (const segment of segments) expect(segment.speaker).toBe(body.speakers[segment.speakerIndex].name);
      // Each person's words are theirs (WER per speaker), and the turns alternate as they were spoken.
      const saidBy = (index: number) =>
        words(
          segments
            .filter((segment) => segment.speakerIndex === index)
            .map((segment) => segment.text)
            .join(" "),
        );
      expect(wordErrorRate(words(ADA.join(" ")), saidBy(0)), saidBy(0).join(" ")).toBeLessThanOrEqual(0.15);
      expect(wordErrorRate(words(BOB.join(" ")), saidBy(1)), saidBy(1).join(" ")).toBeLessThanOrEqual(0.15);
      const turns = segments.map((segment) => segment.speakerIndex).filter((speaker, index, all) => index === 0 || all[index - 1] !== speaker);
      expect(turns).toEqual([0, 1, 0, 1]);
      // Bob's words are placed on the meeting's time line: his track began 5 s in.
      expect(segments.find((segment) => segment.speakerIndex === 1)!.start).toBeGreaterThanOrEqual(5);
      expect(body.durationSeconds).toBe(segments.at(-1)!.end);

      const listed = await api("GET", `/meeting/${meetingId}/transcripts`);
      expect(listed.body.transcripts.map((transcript: { id: string }) => transcript.id)).toEqual([transcriptId]);
      expect(listed.body.transcripts[0].segments).toBeUndefined();

      const ready = await webhookOf("transcript.ready", transcriptId);
      expect(ready.payload!.data).toMatchObject({ transcriptId, meetingId, orgId: tenant.orgId, language: "en", speakers: body.speakers });
      expect(receiver.on("/transcripts").filter((request) => request.payload?.data.transcriptId === transcriptId)).toHaveLength(1);
    },
  );

  it("the access link gives WebVTT with a voice tag per cue (a WebVTT parser reads it) and JSON equal to the API's, without an API key", async () => {
    const link = await api("GET", `/transcripts/${transcriptId}/access-link?expiresInSeconds=120`);
    expect(link.status).toBe(200);
    const transcript = (await api("GET", `/transcripts/${transcriptId}`)).body;

    const vtt = await fetch(link.body.webvttLink);
    expect(vtt.status).toBe(200);
    expect(vtt.headers.get("content-type")).toMatch(/^text\/vtt/);
    expect(vtt.headers.get("cache-control")).toBe("private, no-store");
    const parsed = new WebVTTParser().parse(await vtt.text(), "metadata");
    expect(parsed.errors).toEqual([]);
    expect(parsed.cues.map((cue) => [cue.startTime, cue.endTime, cue.text])).toEqual(
      (transcript.segments as Segment[]).map((segment) => [segment.start, segment.end, `<v ${segment.speaker}>${segment.text.trim()}</v>`]),
    );

    const json = await fetch(link.body.jsonLink);
    expect(json.status).toBe(200);
    expect(await json.json()).toEqual(transcript);

    const forged = link.body.jsonLink.replace(
      /\/transcript-downloads\/([^/]+)\//,
      (_: string, token: string) => `/transcript-downloads/${token.slice(0, -2)}AA/`,
    );
    expect((await fetch(forged)).status).toBe(403);
  });

  it("another organization sees none of it: 404 for the meeting's transcripts, the transcript, its link and delete", async () => {
    const key = other.apiKey;
    expect((await api("GET", `/meeting/${meetingId}/transcripts`, { key })).status).toBe(404);
    expect((await api("GET", `/transcripts/${transcriptId}`, { key })).body).toEqual({ error: "Transcript not found", requestId: expect.any(String) });
    expect((await api("GET", `/transcripts/${transcriptId}/access-link`, { key })).status).toBe(404);
    expect((await api("DELETE", `/transcripts/${transcriptId}`, { key })).status).toBe(404);
    expect((await api("GET", `/transcripts/${transcriptId}`)).body.status).toBe("ready");
  });

  it("DELETE removes the transcript with its text; its links stop working", async () => {
    const link = (await api("GET", `/transcripts/${transcriptId}/access-link`)).body;
    const deleted = await api("DELETE", `/transcripts/${transcriptId}`);
    expect(deleted).toMatchObject({ status: 200, body: { transcriptId, deleted: true } });
    expect((await api("GET", `/transcripts/${transcriptId}`)).status).toBe(404);
    expect((await fetch(link.webvttLink)).status).toBe(404);
    expect((await fetch(link.jsonLink)).status).toBe(404);
    const { rows } = await meetingPool().query("SELECT count(*)::int AS n FROM transcript_segments WHERE transcript_id = $1", [transcriptId]);
    expect(rows[0].n).toBe(0);
  });

  it("a speaker's audio that cannot be read fails the transcript: transcript.failed with its code, no link", { timeout: 120_000 }, async () => {
    const broken = `${randomUUID()}.wav`;
    writeFileSync(path.join(audioDir, broken), "this is not audio");
    const failedId = await transcribe(meetingId, [{ storage: "filesystem", objectKey: broken, offsetMs: 0, speaker: { displayName: "Eve" } }]);
    const { body } = await api("GET", `/transcripts/${failedId}`);
    expect(body).toMatchObject({ status: "failed", errorCode: "audio_unreadable", segments: [] });
    expect(body.error).toMatch(/could not be read/);
    expect((await api("GET", `/transcripts/${failedId}/access-link`)).status).toBe(409);
    const failed = await webhookOf("transcript.failed", failedId);
    expect(failed.payload!.data).toMatchObject({ transcriptId: failedId, errorCode: "audio_unreadable", speakers: [{ name: "Eve", email: null }] });
  });
});
