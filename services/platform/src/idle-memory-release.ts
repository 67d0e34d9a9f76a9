import { performance } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";
import type { Logger } from "./logger.ts";

/**
 * Gives V8's pooled heap pages back to the operating system once a process goes idle after a
 * busy spell. V8 (13.6, in Node 24) keeps the pages a major garbage collection frees in a pool,
 * still committed, for reuse, and releases them only in a memory-reducing collection. Its memory
 * reducer starts one only when the allocation rate is low, which it did not find in our idle
 * processes (`--trace-memory-reducer`: "high alloc" every 8 s), so the pool kept the heap's peak:
 * after `npm run bench` the webhook service held about 130 MB of pooled 256 KB pages beside a live
 * heap of 31 MB (`--trace-gc-verbose`: "pooled: … MB"). `--memory-saver-mode` releases them too,
 * but doubled the CPU per request; this collects once per busy spell, while nothing is waiting.
 */

/** How often the event loop's utilization is sampled. */
const SAMPLE_INTERVAL_MS = 10_000;
/** A sample at or above this share of the event loop busy marks a busy spell (a load, not pollers). */
export const BUSY_UTILIZATION = 0.25;
/** A sample below this share, after a busy spell, is idle enough to pause for a collection. */
export const IDLE_UTILIZATION = 0.05;

export type IdleReleaseState = { busySinceRelease: boolean };

/** Whether to collect now, given the last sample's event loop utilization (0-1), and the state after it. */
export function nextIdleRelease(state: IdleReleaseState, utilization: number): { collect: boolean; state: IdleReleaseState } {
  if (utilization >= BUSY_UTILIZATION) return { collect: false, state: { busySinceRelease: true } };
  if (utilization < IDLE_UTILIZATION && state.busySinceRelease) return { collect: true, state: { busySinceRelease: false } };
  return { collect: false, state };
}

/**
 * V8's `gc` function, without exposing it as a global (which `--expose-gc` would): the flag makes
 * V8 install it in contexts created afterwards, and a new context hands it over.
 */
function garbageCollector(): (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void {
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as ReturnType<typeof garbageCollector>;
}

/** Starts sampling; returns the function that stops it. */
export function releaseMemoryWhenIdle(logger: Logger): () => void {
  const collect = garbageCollector();
  let state: IdleReleaseState = { busySinceRelease: false };
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const decision = nextIdleRelease(state, performance.eventLoopUtilization(now, last).utilization);
    last = now;
    state = decision.state;
    if (!decision.collect) return;
    const before = process.memoryUsage.rss();
    const started = performance.now();
    // "last-resort" is V8's memory-reducing full collection: it empties the page pool.
    collect({ type: "major", execution: "sync", flavor: "last-resort" });
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
    logger.info(
      { rssMbBefore: mb(before), rssMbAfter: mb(process.memoryUsage.rss()), pauseMs: Math.round(performance.now() - started) },
      "idle after load: released unused heap memory",
    );
  }, SAMPLE_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
