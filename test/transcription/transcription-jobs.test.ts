import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { completePiece, createTranscript, leaseJob } from "../../services/meeting/src/db/transcription-jobs.ts";
import { transcriptEvents } from "../../services/meeting/src/meeting-events.ts";
import { startS3Server } from "../support/s3-server.ts";
import { useServiceDatabase } from "../support/service-database.ts";
import { waitFor, waitUntil } from "../support/wait.ts";
import { speak, startTranscriber, stopTranscriber, transcriberPython, wordErrorRate, words, type RunningTranscriber } from "../support/transcription.ts";

// Transcription jobs against the real Postgres and the real worker (docs/transcription.md, "Jobs"):
// the worker process leases a job, transcribes it piece by piece with the Python worker, and a
// worker killed mid-job loses nothing: the job is taken up again and the transcript completes once.
const root = path.resolve(import.meta.dirname, "../..");
const logger = createLogger("transcription-jobs-test", "silent");
const database = useServiceDatabase("meeting", logger, { max: 4 });

// The worker's own test speech (services/meeting/transcriber/tests/speech.json): everyday sentences with pauses.
const SPEECH = (
  JSON.parse(readFileSync(path.join(root, "services/meeting/transcriber/tests/speech.json"), "utf8")) as { sentences: { pause: number; text: string }[] }
).sentences;
const SENTENCES = SPEECH.map((sentence) => sentence.text);

let python: string;
let audioDir: string;
let speechKey: string;

beforeAll(() => {
  // The worker's environment (CI makes it first; scripts/transcriber deps) and espeak-ng for the speech.
  python = transcriberPython();
  audioDir = mkdtempSync(path.join(os.tmpdir(), "svc-transcription-"));
  speechKey = `${randomUUID()}.wav`;
  speak(path.join(audioDir, speechKey), `${SPEECH.map(({ pause, text }) => `<break time="${pause * 1000}ms"/>${text}`).join(" ")}<break time="2s"/>`);
});
afterAll(() => audioDir && rmSync(audioDir, { recursive: true, force: true }));

const startWorker = (env: Record<string, string>): RunningTranscriber => startTranscriber({ databaseUrl: database.url, python, audioDir, env });
const stopWorker = stopTranscriber;

async function newMeeting(): Promise<string> {
  const id = randomUUID().replace(/-/g, "").slice(0, 22);
  await database.pool.query("INSERT INTO meetings (id, org_id, created_by_user_id, title, status) VALUES ($1, 'org', 'user', 'Transcribed', 'live')", [id]);
  return id;
}

const transcriptOf = async (id: string) =>
  (await database.pool.query<{ status: string; error_code: string | null }>("SELECT status, error_code FROM transcripts WHERE id = $1", [id])).rows[0]!;

const pieceLines = (output: string) => output.split("\n").filter((line) => line.includes('"msg":"transcribed a piece"'));

describe("transcription jobs", () => {
  it("a worker killed mid-job loses nothing: the next one takes the job up where it was and the transcript completes once, each sentence once, in order", async () => {
    const transcriptId = await createTranscript(database.pool, {
      meetingId: await newMeeting(),
      orgId: "org",
      sources: [{ storage: "filesystem", objectKey: speechKey, offsetMs: 90_000 }],
    });

    const first = startWorker({});
    try {
      await waitFor(
        async () =>
          (await database.pool.query<{ next_start: number }>("SELECT next_start FROM transcription_jobs WHERE transcript_id = $1", [transcriptId])).rows[0]!
            .next_start > 0,
        120_000,
        "the first piece was not stored",
      );
    } finally {
      await stopWorker(first, "SIGKILL");
    }
    expect((await transcriptOf(transcriptId)).status).toBe("processing");

    const second = startWorker({});
    try {
      await waitFor(async () => (await transcriptOf(transcriptId)).status !== "processing", 180_000, "the transcript did not complete");
    } finally {
      await stopWorker(second, "SIGTERM");
    }

    expect(await transcriptOf(transcriptId)).toEqual({ status: "ready", error_code: null });
    const lines = [...pieceLines(first.output()), ...pieceLines(second.output())];
    expect(lines.filter((line) => line.includes('"outcome":"ready"'))).toHaveLength(1);
    const { rows: segments } = await database.pool.query<{ start_ms: string; end_ms: string; text: string }>(
      "SELECT start_ms, end_ms, text FROM transcript_segments WHERE transcript_id = $1 ORDER BY id",
      [transcriptId],
    );
    const starts = segments.map((segment) => Number(segment.start_ms));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(new Set(starts).size).toBe(starts.length);
    expect(starts[0]).toBeGreaterThanOrEqual(90_000); // the job's offset places the audio on the transcript's time line
    const heard = words(segments.map((segment) => segment.text).join(" "));
    expect(wordErrorRate(words(SENTENCES.join(" ")), heard), heard.join(" ")).toBeLessThanOrEqual(0.15);
  });

  it(
    "reads audio from S3, the recordings' other storage, with only s3:GetObject: each piece's object is fetched to a temporary file deleted after it; an object not in the bucket fails at once",
    { timeout: 240_000 },
    async () => {
      // The real S3-compatible server the recording tests use (versitygw), the worker given the meeting service's values.
      const s3 = await startS3Server();
      const temporary = mkdtempSync(path.join(os.tmpdir(), "svc-transcriber-tmp-"));
      try {
        await s3.grant({ reader: ["s3:GetObject"], uploader: ["s3:PutObject"] });
        const key = `${randomUUID()}.wav`;
        const put = await s3.client.fetch(`${s3.endpoint}/${s3.bucket}/${key}`, { method: "PUT", body: readFileSync(path.join(audioDir, speechKey)) });
        expect(put.status).toBe(200);
        const meetingId = await newMeeting();
        const stored = await createTranscript(database.pool, { meetingId, orgId: "org", sources: [{ storage: "s3", objectKey: key, offsetMs: 0 }] });
        const missing = await createTranscript(database.pool, {
          meetingId,
          orgId: "org",
          sources: [{ storage: "s3", objectKey: `${randomUUID()}.ogg`, offsetMs: 0 }],
        });
        const worker = startWorker({ ...s3.env, TMPDIR: temporary });
        let completed: boolean;
        try {
          completed = await waitUntil(
            async () => (await transcriptOf(stored)).status !== "processing" && (await transcriptOf(missing)).status !== "processing",
            180_000,
          );
        } finally {
          await stopWorker(worker, "SIGTERM");
        }
        expect(completed, `the S3 transcripts did not complete:\n${worker.output().slice(-3000)}`).toBe(true);
        expect(await transcriptOf(stored), worker.output().slice(-3000)).toEqual({ status: "ready", error_code: null });
        expect(await transcriptOf(missing)).toEqual({ status: "failed", error_code: "audio_unreadable" });
        // 20-second pieces: the object was fetched more than once, and nothing fetched is left.
        expect(pieceLines(worker.output()).length).toBeGreaterThan(1);
        expect(readdirSync(temporary).filter((name) => name.startsWith("svc-transcriber-"))).toEqual([]);
        const { rows: segments } = await database.pool.query<{ text: string }>(
          "SELECT text FROM transcript_segments WHERE transcript_id = $1 ORDER BY start_ms",
          [stored],
        );
        const heard = words(segments.map((segment) => segment.text).join(" "));
        expect(wordErrorRate(words(SENTENCES.join(" ")), heard), heard.join(" ")).toBeLessThanOrEqual(0.15);
      } finally {
        await s3.stop();
        rmSync(temporary, { recursive: true, force: true });
      }
    },
  );

  it("a piece that fails is tried again, then the transcript fails with a reason code; audio that is not audio fails it at once", async () => {
    const notAudioKey = `${randomUUID()}.wav`;
    writeFileSync(path.join(audioDir, notAudioKey), "this is not audio");
    const meetingId = await newMeeting();
    const unreadable = await createTranscript(database.pool, {
      meetingId,
      orgId: "org",
      sources: [{ storage: "filesystem", objectKey: notAudioKey, offsetMs: 0 }],
    });
    const worker = startWorker({});
    try {
      await waitFor(async () => (await transcriptOf(unreadable)).status !== "processing", 60_000, "the unreadable audio's transcript did not fail");
    } finally {
      await stopWorker(worker, "SIGTERM");
    }
    expect(await transcriptOf(unreadable)).toEqual({ status: "failed", error_code: "audio_unreadable" });
    const { rows: attempts } = await database.pool.query<{ attempts: number }>("SELECT attempts FROM transcription_jobs WHERE transcript_id = $1", [
      unreadable,
    ]);
    expect(attempts).toEqual([{ attempts: 1 }]);

    // A transcriber that crashes on every piece (a Python that exits 1): tried three times, then failed.
    const crashing = await createTranscript(database.pool, {
      meetingId,
      orgId: "org",
      sources: [{ storage: "filesystem", objectKey: speechKey, offsetMs: 0 }],
    });
    const broken = startWorker({ TRANSCRIBER_PYTHON: "/bin/false", TRANSCRIBER_MAX_ATTEMPTS: "3" });
    try {
      await waitFor(async () => (await transcriptOf(crashing)).status !== "processing", 60_000, "the crashing transcriber's transcript did not fail");
    } finally {
      await stopWorker(broken, "SIGTERM");
    }
    expect(await transcriptOf(crashing)).toEqual({ status: "failed", error_code: "transcriber_failed" });
    expect(pieceLines(broken.output())).toEqual([]);
    expect(broken.output().match(/"msg":"a transcription piece failed"/g)).toHaveLength(3);
  });

  it("a worker whose lease expired and was taken by another stores nothing of its piece; the new holder's piece is stored once", async () => {
    const transcriptId = await createTranscript(database.pool, {
      meetingId: await newMeeting(),
      orgId: "org",
      sources: [{ storage: "filesystem", objectKey: speechKey, offsetMs: 0 }],
    });
    const lease = { leaseMs: 60_000, maxAttempts: 3, events: transcriptEvents };
    const slow = (await leaseJob(database.pool, lease))!;
    expect(slow.transcriptId).toBe(transcriptId);
    expect(await leaseJob(database.pool, lease)).toBeUndefined(); // leased: nobody else takes it
    await database.pool.query("UPDATE transcription_jobs SET leased_until = now() - interval '1 second' WHERE id = $1", [slow.id]);
    const taker = (await leaseJob(database.pool, lease))!;
    expect([taker.id, taker.attempt]).toEqual([slow.id, 2]);

    const piece = { segments: [{ start: 1, end: 2, text: "hello", words: [] }], nextStart: 15 };
    expect(await completePiece(database.pool, slow, piece, transcriptEvents)).toBe("lease_lost");
    expect(await completePiece(database.pool, taker, piece, transcriptEvents)).toBe("continues");
    expect(await completePiece(database.pool, taker, piece, transcriptEvents)).toBe("lease_lost"); // a piece is stored once per lease
    const { rows } = await database.pool.query("SELECT text FROM transcript_segments WHERE transcript_id = $1", [transcriptId]);
    expect(rows).toEqual([{ text: "hello" }]);
    const { rows: job } = await database.pool.query("SELECT next_start, attempts FROM transcription_jobs WHERE id = $1", [slow.id]);
    expect(job).toEqual([{ next_start: 15, attempts: 0 }]);
  });
});
