// The transcription worker (services/meeting/src/transcription/worker-main.ts) for `npm start` and
// the tests: whether its Python environment exists, and how to launch it. The environment is made
// once by `scripts/transcriber deps` (about 300 MB from PyPI); `npm start` does not make it, as it
// does not build Egress's system packages: it runs the worker when it exists and otherwise says how
// to get it. In Kubernetes the worker is the chart's `transcriber` Deployment.
import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const script = path.join(root, "scripts/transcriber");

/** The worker's entry point, relative to the meeting context's folder (its working directory). */
export const TRANSCRIBER_ENTRY = "src/transcription/worker-main.ts";

/**
 * Why transcription is unavailable here, or undefined when the worker's environment exists
 * (`scripts/transcriber available`, under `SVC_CACHE` of `env`).
 */
export function transcriberUnavailable(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const available = spawnSync("bash", [script, "available"], { env, encoding: "utf8" });
  if (available.status === 0) return undefined;
  return `transcription is unavailable: its worker's Python environment is not made (\`scripts/transcriber deps\` makes it: about 300 MB from PyPI, once)`;
}

/** The Python of the worker's environment (TRANSCRIBER_PYTHON); makes the environment when it is missing. */
export function transcriberPython(env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync("bash", [script, "python"], { env, encoding: "utf8" }).trim();
}
