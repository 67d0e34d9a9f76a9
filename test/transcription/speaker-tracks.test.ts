import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { WebVTTParser } from "webvtt-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { holdStill } from "../support/hold-still.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { recorderActive } from "../support/recorder-active.ts";
import { apiBase, callApi, readResponse } from "../support/rest-client.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { speak, startTranscriber, stopTranscriber, transcriberPython, wordErrorRate, words, type RunningTranscriber } from "../support/transcription.ts";
import { useStack } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";
import { subscribeReceiver, useWebhookReceiver } from "../support/webhook-fixtures.ts";
import type { ReceivedWebhook } from "../support/webhook-receiver.ts";

// Who said what, end to end (issue 43's acceptance): two Chromium participants whose fake
// microphones play known espeak-ng speech, a recording of a meeting whose `transcription` is on,
// each person's own track written by LiveKit Egress beside it, the real worker with the real model,
// and one transcript that names each speaker, announced by a verified `transcript.ready`.

const SHOTS = path.join(os.tmpdir(), "svc-speaker-tracks");
const SENTENCES = (
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../services/meeting/transcriber/tests/speech.json"), "utf8")) as {
    sentences: { text: string }[];
  }
).sentences.map((sentence) => sentence.text);
const SAID = { ada: [SENTENCES[0]!, SENTENCES[2]!], bob: [SENTENCES[1]!, SENTENCES[3]!] };
/** Each file loops in its browser; the recording holds each person's speech at least twice. */
const RECORD_SECONDS = 45;

const fixture = useStack({ recording: true, env: { LOG_LEVEL: "info", RECORDING_WATCH_INTERVAL_MS: "1000" } });
const receiver = useWebhookReceiver();
let tenant: Tenant;
let python: string;
const browsers: Browser[] = [];
const pages: Page[] = [];

/** Speech as Chromium's fake microphone plays it: 48 kHz mono WAV, a pause before and after each sentence. */
function speechFile(name: string, sentences: string[]): string {
  const raw = path.join(SHOTS, `${name}-raw.wav`);
  const file = path.join(SHOTS, `${name}.wav`);
  speak(raw, sentences.map((sentence) => `<break time="2s"/>${sentence}`).join("") + '<break time="2s"/>');
  execFileSync("ffmpeg", ["-y", "-loglevel", "error", "-i", raw, "-ar", "48000", "-ac", "1", file]);
  return file;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  python = transcriberPython();
  tenant = await createTenant(fixture.stack);
  await subscribeReceiver(fixture.stack, receiver, tenant.apiKey, "/transcripts", { events: ["transcript.ready", "transcript.failed"] });
  for (const [name, sentences] of Object.entries(SAID)) browsers.push(await launchChromium({ fakeMedia: true, fakeAudioFile: speechFile(name, sentences) }));
}, 900_000);

afterAll(async () => {
  for (const page of pages) await page.screenshot({ path: path.join(SHOTS, `room-${pages.indexOf(page)}.png`) }).catch(() => undefined);
  for (const browser of browsers) await browser.close();
});

const api = (method: string, route: string, body?: unknown) =>
  callApi(apiBase(fixture.stack), method, route, { key: tenant.apiKey, ...(body === undefined ? {} : { body }) }).then(readResponse);

async function webhookOf(type: string, match: (data: Record<string, unknown>) => boolean, timeoutMs: number): Promise<ReceivedWebhook> {
  let found: ReceivedWebhook | undefined;
  await waitFor(
    () => {
      found = receiver.on("/transcripts").find((request) => request.payload?.type === type && match(request.payload.data));
      return found !== undefined;
    },
    timeoutMs,
    `${type} was delivered`,
  );
  expect(found!.verificationError).toBeUndefined();
  return found!;
}

/** The lowest WER of `sentence` against any run of `heard` of about its length: the sentence was said (once at least) and heard so. */
function bestWindowWer(sentence: string[], heard: string[]): number {
  let best = 1;
  for (let start = 0; start < heard.length; start++)
    for (const length of [sentence.length - 2, sentence.length - 1, sentence.length, sentence.length + 1, sentence.length + 2])
      if (length > 0 && start + length <= heard.length) best = Math.min(best, wordErrorRate(sentence, heard.slice(start, start + length)));
  return best;
}

interface Segment {
  speaker: string;
  speakerIndex: number;
  start: number;
  end: number;
  text: string;
}

describe("a recorded meeting with transcription on", () => {
  it("records each participant's own track and transcribes them into one transcript that names who said each sentence", { timeout: 600_000 }, async () => {
    const created = await api("POST", "/meeting", { title: "Who said what", recording: "manual", transcription: "on", attendees: ["ada@example.com"] });
    expect(created.status).toBe(200);
    const meetingId = created.body.id as string;
    const adaLink = await api("POST", `/meeting/${meetingId}/links`, { email: "ada@example.com" });
    pages.push(await joinMeeting(browsers[0]!, adaLink.body.url, "Ada Lovelace"));
    pages.push(await joinMeeting(browsers[1]!, created.body.url, "Bob"));

    const worker: RunningTranscriber = startTranscriber({ databaseUrl: fixture.stack.databaseUrl, python, audioDir: fixture.stack.recording!.dir });
    try {
      const started = await api("POST", `/meeting/${meetingId}/recordings`, { layout: "audio" });
      expect(started.status).toBe(201);
      const recordingId = started.body.id as string;
      await recorderActive(fixture.stack, recordingId);
      // One track egress per microphone, once the recording captures.
      await waitFor(
        async () =>
          (
            await fixture.stack.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM meeting.recording_tracks WHERE recording_id = $1 AND egress_id IS NOT NULL AND started_at IS NOT NULL",
              [recordingId],
            )
          ).rows[0]!.n === 2,
        60_000,
        "both speakers' tracks were not being written",
      );
      await holdStill(RECORD_SECONDS * 1_000, "the recording's length: each person's looped speech is said at least twice");
      expect((await api("POST", `/recordings/${recordingId}/stop`)).status).toBe(200);

      const ready = await webhookOf("transcript.ready", (data) => data.meetingId === meetingId, 300_000);
      const transcriptId = String(ready.payload!.data.transcriptId);
      const { body } = await api("GET", `/transcripts/${transcriptId}`);
      expect(body).toMatchObject({ status: "ready", recordingId, meetingId });
      expect([...body.speakers].sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name))).toEqual([
        { name: "Ada Lovelace", email: "ada@example.com" },
        { name: "Bob", email: null },
      ]);
      expect(ready.payload!.data.speakers).toEqual(body.speakers);

      const segments = body.segments as Segment[];
      const starts = segments.map((segment) => segment.start);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
      expect(Math.max(...segments.map((segment) => segment.end))).toBeLessThan(RECORD_SECONDS + 30);
      const vocabulary = { "Ada Lovelace": new Set(words(SAID.ada.join(" "))), Bob: new Set(words(SAID.bob.join(" "))) };
      for (const [name, said] of [
        ["Ada Lovelace", SAID.ada],
        ["Bob", SAID.bob],
      ] as const) {
        const theirs = segments.filter((segment) => segment.speaker === name);
        const heard = words(theirs.map((segment) => segment.text).join(" "));
        // Each of their sentences is in their own segments, heard with WER ≤ 15 %.
        for (const sentence of said) expect(bestWindowWer(words(sentence), heard), `${name}: ${heard.join(" ")}`).toBeLessThanOrEqual(0.15);
        // And their segments hold their words, not the other person's.
        const own = heard.filter((word) => vocabulary[name].has(word)).length;
        expect(own / heard.length, `${name}: ${heard.join(" ")}`).toBeGreaterThanOrEqual(0.85);
      }

      const link = await api("GET", `/transcripts/${transcriptId}/access-link`);
      const parsed = new WebVTTParser().parse(await (await fetch(link.body.webvttLink)).text(), "metadata");
      expect(parsed.errors).toEqual([]);
      expect(parsed.cues).toHaveLength(segments.length);
      expect(new Set(parsed.cues.map((cue) => /^<v ([^>]+)>/.exec(cue.text)?.[1]))).toEqual(new Set(["Ada Lovelace", "Bob"]));
    } finally {
      await stopTranscriber(worker, "SIGTERM");
    }
  });
});
