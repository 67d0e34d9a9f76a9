// Summarises the V8 CPU profiles that `--cpu-prof` writes (one per process) into the frames where
// the time went, so docs/benchmarks.md can name them without a flame-graph viewer.
//   scripts/node test/bench/profile-summary.ts <dir with *.cpuprofile> [top N]
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface FrameShare {
  frame: string;
  /** Share of the process's samples spent in this frame itself (self time). */
  self: number;
}

/** Where a frame's code lives, short: the package for dependencies, the repository path for ours. */
function location(url: string): string {
  if (!url) return "(native)";
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packageMatch) return packageMatch[1]!;
  const ours = /\/(services|gateway|proto)\/(.+)$/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  return url.replace(/^node:/, "node:");
}

type CallFrame = CpuProfileNode["callFrame"];

/**
 * Self time grouped by `keyOf(frame)`, largest first: each sample counts for the frame it was taken
 * in. Shares are of the busy samples: a process of the bench is idle most of its life (start-up,
 * other scenarios), and shares of all samples would hide where its working time goes.
 */
function selfShares(profile: CpuProfile, keyOf: (frame: CallFrame) => string, count: number): FrameShare[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const samplesByKey = new Map<string, number>();
  let busy = 0;
  for (const sample of profile.samples) {
    const frame = byId.get(sample)!.callFrame;
    if (frame.functionName === "(idle)") continue;
    busy++;
    const key = keyOf(frame);
    samplesByKey.set(key, (samplesByKey.get(key) ?? 0) + 1);
  }
  return [...samplesByKey]
    .map(([frame, samples]) => ({ frame, self: samples / busy }))
    .sort((a, b) => b.self - a.self)
    .slice(0, count);
}

/** Self time per frame (function and where it lives), largest first. */
export const topFrames = (profile: CpuProfile, count: number) =>
  selfShares(profile, (frame) => `${frame.functionName || "(anonymous)"} ${location(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ""}`, count);

/** Self time per package or folder: where the CPU goes at a glance. */
export const topLocations = (profile: CpuProfile, count: number) =>
  selfShares(
    profile,
    (frame) => (frame.url ? location(frame.url).replace(/\/[^/]+$/, "") : frame.functionName.startsWith("(") ? frame.functionName : "(native)"),
    count,
  );

function main() {
  const dir = process.argv[2];
  if (!dir) throw new Error("usage: profile-summary.ts <dir> [top N]");
  const count = Number(process.argv[3] ?? 15);
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".cpuprofile"))) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as CpuProfile;
    const seconds = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0) / 1e6;
    console.log(`\n## ${file} (${seconds.toFixed(1)} s, ${profile.samples.length} samples; shares of the busy ones)`);
    console.log(
      "by package/folder:",
      topLocations(profile, 8)
        .map((share) => `${share.frame} ${(share.self * 100).toFixed(1)}%`)
        .join(", "),
    );
    for (const share of topFrames(profile, count)) console.log(`${(share.self * 100).toFixed(1).padStart(5)}%  ${share.frame}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
