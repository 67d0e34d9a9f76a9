import { describe, expect, it } from "vitest";
import { retryBackoffMs } from "./retry-backoff.ts";

const backoffMs = (failures: number, maxMs: number) => retryBackoffMs(failures, { initialMs: 250, maxMs });

describe("retry backoff", () => {
  it("doubles from 250 ms per failure, jittered into the upper half", () => {
    for (const [failures, base] of [
      [1, 250],
      [2, 500],
      [3, 1_000],
      [6, 8_000],
    ] as const) {
      for (let draw = 0; draw < 200; draw++) {
        const delay = backoffMs(failures, 30_000);
        expect(delay).toBeGreaterThanOrEqual(base / 2);
        expect(delay).toBeLessThanOrEqual(base);
      }
    }
  });

  it("never exceeds the configured cap, however long the outage", () => {
    for (const failures of [10, 50, 1_000, 1_000_000]) expect(backoffMs(failures, 2_000)).toBeLessThanOrEqual(2_000);
  });

  it("spreads replicas apart instead of retrying in step", () => {
    const delays = new Set(Array.from({ length: 50 }, () => Math.round(backoffMs(5, 30_000))));
    expect(delays.size).toBeGreaterThan(10);
  });
});
