import { spawn } from "node:child_process";
import path from "node:path";

const parser = path.resolve(import.meta.dirname, "../../scripts/prometheus-parse");

export interface Sample {
  family: string;
  type: string;
  name: string;
  labels: Record<string, string>;
  /** null for NaN. */
  value: number | null;
}

/** Parses a /metrics body with the reference Prometheus client's text-format parser (scripts/prometheus-parse). */
export function parsePrometheusText(text: string): Promise<Sample[]> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", [parser], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    // "close": all of its output read, which "exit" does not promise.
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`the Prometheus parser refused the exposition (exit ${code}):\n${stderr}`));
      resolve(
        stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Sample),
      );
    });
    child.stdin.end(text);
  });
}

/** Sum of the values of the samples named `name` that carry every label in `labels`. */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([label, value]) => sample.labels[label] === value))
    .reduce((sum, sample) => sum + (sample.value ?? Number.NaN), 0);
}
