import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

// The real transcription worker (services/meeting/src/transcription/worker-main.ts) for tests, and
// what they measure its text with. The worker's Python environment must exist (CI makes it first;
// scripts/transcriber deps), and espeak-ng speaks the test speech.
const root = path.resolve(import.meta.dirname, "../..");

/** The Python of the worker's environment (scripts/transcriber python). */
export { transcriberPython } from "../../scripts/transcriber-worker.ts";

/** Writes `text` spoken by espeak-ng (SSML: `<break time="2s"/>` for pauses) as a WAV file. */
export function speak(file: string, ssml: string, voice = "en-us"): void {
  execFileSync("espeak-ng", ["-m", "-v", voice, "-s", "150", "-w", file, `<speak>${ssml}</speak>`]);
}

export interface RunningTranscriber {
  child: ChildProcess;
  output: () => string;
}

/** Starts a worker process on `databaseUrl`'s meeting schema, reading audio from `audioDir`; short pieces, leases and polls for tests. */
export function startTranscriber(options: { databaseUrl: string; python: string; audioDir: string; env?: Record<string, string> }): RunningTranscriber {
  let output = "";
  const child = spawn(process.execPath, ["--conditions=source", path.join(root, "services/meeting/src/transcription/worker-main.ts")], {
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      TRANSCRIBER_PYTHON: options.python,
      RECORDING_DIR: options.audioDir,
      TRANSCRIBER_PIECE_SECONDS: "20",
      TRANSCRIBER_LEASE_MS: "3000",
      TRANSCRIBER_POLL_MS: "200",
      TRANSCRIBER_RETRY_AFTER_MS: "0",
      LOG_LEVEL: "info",
      ...options.env,
    },
    // Its own process group: killing the worker kills the piece it is transcribing with it, as a crash of its machine would.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  return { child, output: () => output };
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once("exit", () => resolve()));

export async function stopTranscriber(worker: RunningTranscriber, signal: NodeJS.Signals): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) process.kill(-worker.child.pid!, signal);
  await exited(worker.child);
}

/** Lower-case words without punctuation, as word error rates compare them. */
export const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z' ]/g, " ")
    .split(/\s+/)
    .filter(Boolean);

/** Word error rate: the edit distance between the word lists over the reference's length. */
export function wordErrorRate(reference: string[], hypothesis: string[]): number {
  let previousRow = hypothesis.map((_, j) => j + 1);
  previousRow.unshift(0);
  for (let i = 1; i <= reference.length; i++) {
    const row = [i];
    for (let j = 1; j <= hypothesis.length; j++)
      row.push(Math.min(previousRow[j]! + 1, row[j - 1]! + 1, previousRow[j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1)));
    previousRow = row;
  }
  return previousRow[hypothesis.length]! / reference.length;
}
