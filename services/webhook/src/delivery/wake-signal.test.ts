import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WakeSignal } from "./wake-signal.ts";

describe("WakeSignal", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const settledAfter = async (promise: Promise<void>, ms: number) => {
    let settled = false;
    void promise.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(ms);
    return settled;
  };

  it("rests the whole time when nothing wakes it", async () => {
    const signal = new WakeSignal();
    const rest = signal.sleep(1_000);
    expect(await settledAfter(rest, 999)).toBe(false);
    expect(await settledAfter(rest, 1)).toBe(true);
  });

  it("a wake-up ends the rest at once", async () => {
    const signal = new WakeSignal();
    const rest = signal.sleep(60_000);
    signal.wake();
    expect(await settledAfter(rest, 0)).toBe(true);
    expect(signal.requested).toBe(true);
  });

  it("a wake-up that came before the rest is not slept through, until it is taken", async () => {
    const signal = new WakeSignal();
    signal.wake();
    expect(await settledAfter(signal.sleep(60_000), 0)).toBe(true);
    signal.take();
    expect(signal.requested).toBe(false);
    expect(await settledAfter(signal.sleep(60_000), 1_000)).toBe(false);
  });

  it("once closed, every rest ends at once, even after a take", async () => {
    const signal = new WakeSignal();
    const resting = signal.sleep(60_000);
    signal.close();
    expect(await settledAfter(resting, 0)).toBe(true);
    signal.take();
    expect(await settledAfter(signal.sleep(60_000), 0)).toBe(true);
  });
});
