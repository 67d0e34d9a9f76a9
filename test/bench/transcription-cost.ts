// What transcription costs on this machine (docs/transcription.md, "Cost"): CPU-seconds per
// audio-second and peak memory of the transcription worker on synthetic speech of 10 and 60 minutes
// (Opus in OGG, what a participant's audio track is), transcribed piece by piece as the worker does,
// beside the model alone on the same 10 minutes in one go (faster-whisper given the whole file: its
// memory grows with the length, so 60 minutes alone would need several GB and is not run).
// Goals (issue 43): at most 0.3 CPU-seconds per audio-second end to end, at most 800 MB for 60 minutes.
//
//   npm run bench (its "transcription" section; alone: npm run bench -- --only=transcription), or
//   scripts/node test/bench/transcription-cost.ts      TRANSCRIPTION_BENCH_MINUTES=10,60
//
// The speech is one paragraph said by espeak-ng, with a pause, looped (ffmpeg) to the length and
// encoded to Opus. CPU and peak memory are the worker process's own (getrusage, --stats).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { formatTranscriptionCostTable, type TranscriptionCost } from "./cost-tables.ts";

const root = path.resolve(import.meta.dirname, "../..");
const minutesList = (process.env.TRANSCRIPTION_BENCH_MINUTES ?? "10,60").split(",").map(Number);
const PARAGRAPH =
  "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. Help the woman get back to her feet. " +
  "These days a chicken leg is a rare dish. Rice is often served in round bowls. The juice of lemons makes fine punch. " +
  "The box was thrown beside the parked truck. A large size in stockings is hard to sell.";

interface Run {
  cpuSeconds: number;
  peakRssMb: number;
}

function speech(dir: string, minutes: number): string {
  const said = path.join(dir, "paragraph.wav");
  execFileSync("espeak-ng", ["-m", "-v", "en-us", "-s", "150", "-w", said, `<speak>${PARAGRAPH}<break time="3s"/></speak>`]);
  const looped = path.join(dir, `speech-${minutes}.ogg`);
  execFileSync("ffmpeg", [
    "-loglevel",
    "error",
    "-y",
    "-stream_loop",
    "-1",
    "-i",
    said,
    "-t",
    String(minutes * 60),
    "-ac",
    "1",
    "-ar",
    "48000",
    "-c:a",
    "libopus",
    "-b:a",
    "32k",
    looped,
  ]);
  return looped;
}

function transcribe(mode: "file" | "whole", audio: string): Run {
  const run = spawnSync(path.join(root, "scripts/transcriber"), [mode, audio, "--stats"], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`transcriber ${mode} exited ${run.status}: ${run.stderr}`);
  const stats = run.stderr.trim().split("\n").at(-1)!;
  return JSON.parse(stats) as Run;
}

export function measureTranscriptionCost(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-transcription-bench-"));
  const rows: TranscriptionCost[] = [];
  try {
    for (const minutes of minutesList) {
      const audio = speech(dir, minutes);
      const seconds = minutes * 60;
      const worker = transcribe("file", audio);
      const alone = minutes <= 10 ? transcribe("whole", audio) : undefined;
      rows.push({
        minutes,
        workerCpuSecondsPerAudioSecond: worker.cpuSeconds / seconds,
        workerPeakRssMb: worker.peakRssMb,
        ...(alone ? { alone: { cpuSecondsPerAudioSecond: alone.cpuSeconds / seconds, peakRssMb: alone.peakRssMb } } : {}),
      });
      process.stderr.write(`${formatTranscriptionCostTable(rows.slice(-1)).split("\n")[3]!}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return formatTranscriptionCostTable(rows);
}

// Run directly: print the table.
if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(measureTranscriptionCost());
