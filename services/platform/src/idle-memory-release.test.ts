import { describe, expect, it } from "vitest";
import { BUSY_UTILIZATION, IDLE_UTILIZATION, nextIdleRelease, type IdleReleaseState } from "./idle-memory-release.ts";

/** The decisions for a run of utilization samples, from a process that has not been busy yet. */
function decisions(samples: number[]): boolean[] {
  let state: IdleReleaseState = { busySinceRelease: false };
  return samples.map((utilization) => {
    const next = nextIdleRelease(state, utilization);
    state = next.state;
    return next.collect;
  });
}

describe("releasing memory when idle", () => {
  it("never collects in a process that was never busy (its pollers alone)", () => {
    expect(decisions([0, 0.01, 0.03, 0, 0.1, 0.2, 0.01])).toEqual(Array(7).fill(false));
  });

  it("collects once at the first idle sample after a busy spell, not while it lasts", () => {
    expect(decisions([0.01, 0.9, 0.8, BUSY_UTILIZATION, 0.01, 0.01, 0])).toEqual([false, false, false, false, true, false, false]);
  });

  it("waits through samples between busy and idle, and collects again after the next busy spell", () => {
    expect(decisions([0.6, 0.1, IDLE_UTILIZATION, 0.04, 0.02, 0.7, 0.03])).toEqual([false, false, false, true, false, false, true]);
  });
});
