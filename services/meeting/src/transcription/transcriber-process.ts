import { spawn } from "node:child_process";
import path from "node:path";
import { z } from "zod";
import type { TranscribedSegment } from "../db/transcription-jobs.ts";
import type { TranscriptionFailureCode } from "../transcript-store.ts";

/** The Python worker's folder (services/meeting/transcriber): `python -m svc_transcriber` runs from it. */
export const TRANSCRIBER_DIR = path.resolve(import.meta.dirname, "../../transcriber");

const pieceJson = z.object({
  start: z.number(),
  end: z.number(),
  keepUntil: z.number(),
  nextStart: z.number().nullable(),
  segments: z.array(
    z.object({
      start: z.number(),
      end: z.number(),
      text: z.string(),
      words: z.array(z.object({ start: z.number(), end: z.number(), word: z.string(), probability: z.number() })),
    }),
  ),
});

export type TranscribedPiece = { segments: TranscribedSegment[]; nextStart: number | null };

/** The worker's exit status says why a piece failed (svc_transcriber/__main__.py). */
export class PieceFailed extends Error {
  readonly code: TranscriptionFailureCode;
  /** Trying the same piece again cannot help (the model's files are wrong, the audio is not audio). */
  readonly permanent: boolean;

  constructor(message: string, code: TranscriptionFailureCode, permanent: boolean) {
    super(message);
    this.code = code;
    this.permanent = permanent;
  }
}

const failureOfExit = (status: number | null): { code: TranscriptionFailureCode; permanent: boolean } =>
  status === 3
    ? { code: "model_refused", permanent: true }
    : status === 4
      ? { code: "audio_unreadable", permanent: true }
      : { code: "transcriber_failed", permanent: false };

export interface TranscriberOptions {
  /** The Python of the worker's environment (`scripts/transcriber deps` makes it). */
  python: string;
  /** A piece's length in seconds (at most 600). */
  pieceSeconds: number;
  /** The model's CPU threads. */
  threads: number;
}

/** The part of a piece decoded only to hear a sentence that crosses the cut to its end (svc_transcriber/pieces.py). */
const lookaheadOf = (pieceSeconds: number) => Math.min(30, pieceSeconds / 4);

/**
 * Transcribes one piece of an audio file in a child process (`python -m svc_transcriber piece`):
 * a process per piece, so the model's memory is given back after every piece and a crash costs
 * one piece. `signal` kills it (the worker is stopping).
 */
export function transcribePiece(options: TranscriberOptions, audioPath: string, start: number, signal?: AbortSignal): Promise<TranscribedPiece> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      options.python,
      [
        "-m",
        "svc_transcriber",
        "piece",
        audioPath,
        "--start",
        String(start),
        "--max-seconds",
        String(options.pieceSeconds),
        "--lookahead",
        String(lookaheadOf(options.pieceSeconds)),
        "--threads",
        String(options.threads),
      ],
      {
        cwd: TRANSCRIBER_DIR,
        env: { ...process.env, PYTHONPATH: TRANSCRIBER_DIR, PYTHONDONTWRITEBYTECODE: "1", HF_HUB_OFFLINE: "1" },
        stdio: ["ignore", "pipe", "pipe"],
        signal,
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    child.on("error", (error) => reject(new PieceFailed(`the transcriber could not run: ${error.message}`, "transcriber_failed", false)));
    child.on("close", (status, killedBy) => {
      if (status !== 0) {
        const failure = failureOfExit(status);
        reject(new PieceFailed(`the transcriber exited (${status ?? killedBy}): ${stderr.trim().split("\n").at(-1) ?? ""}`, failure.code, failure.permanent));
        return;
      }
      let printed: unknown;
      try {
        printed = JSON.parse(stdout);
      } catch {
        printed = undefined;
      }
      const parsed = pieceJson.safeParse(printed);
      if (!parsed.success) {
        reject(new PieceFailed(`the transcriber printed no piece: ${parsed.error.message}`, "transcriber_failed", false));
        return;
      }
      resolve({ segments: parsed.data.segments, nextStart: parsed.data.nextStart });
    });
  });
}
