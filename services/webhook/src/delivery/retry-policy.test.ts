import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_SCHEDULE } from "../config.ts";
import { nextRetryDelayMs, parseRetryAfter, type RetryPolicy } from "./retry-policy.ts";

const policy: RetryPolicy = { scheduleSeconds: DEFAULT_RETRY_SCHEDULE.split(",").map(Number), throttledMinDelaySeconds: 60, jitter: 0.2 };
const plainFailure = { statusCode: 500, timedOut: false };

describe("retry schedule", () => {
  it("follows 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the immediate first attempt, then gives up", () => {
    const middle = () => 0.5; // no jitter
    const delays = [1, 2, 3, 4, 5, 6, 7].map((made) => nextRetryDelayMs(policy, made, plainFailure, middle));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(nextRetryDelayMs(policy, 8, plainFailure, middle)).toBeUndefined();
  });

  it("applies at most ±20 % jitter", () => {
    expect(nextRetryDelayMs(policy, 2, plainFailure, () => 0)).toBe(240_000);
    expect(nextRetryDelayMs(policy, 2, plainFailure, () => 1)).toBe(360_000);
    const samples = Array.from({ length: 500 }, () => nextRetryDelayMs(policy, 2, plainFailure)!);
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(240_000);
    expect(Math.max(...samples)).toBeLessThanOrEqual(360_000);
    expect(new Set(samples).size).toBeGreaterThan(100);
  });

  it("waits at least the throttle floor after a timeout or a 429", () => {
    const middle = () => 0.5;
    expect(nextRetryDelayMs(policy, 1, { timedOut: true }, middle)).toBe(60_000);
    expect(nextRetryDelayMs(policy, 1, { statusCode: 429, timedOut: false }, middle)).toBe(60_000);
    expect(nextRetryDelayMs(policy, 1, { statusCode: 503, timedOut: false }, middle)).toBe(5_000);
    // Longer scheduled delays are not shortened by the floor.
    expect(nextRetryDelayMs(policy, 2, { timedOut: true }, middle)).toBe(300_000);
  });

  it("honours Retry-After up to twice the scheduled delay, never shorter than the schedule", () => {
    const middle = () => 0.5;
    expect(nextRetryDelayMs(policy, 2, { statusCode: 503, timedOut: false, retryAfterSeconds: 450 }, middle)).toBe(450_000);
    expect(nextRetryDelayMs(policy, 2, { statusCode: 503, timedOut: false, retryAfterSeconds: 100_000 }, middle)).toBe(600_000);
    expect(nextRetryDelayMs(policy, 2, { statusCode: 503, timedOut: false, retryAfterSeconds: 1 }, middle)).toBe(300_000);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = new Date("2030-01-01T00:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter("Tue, 01 Jan 2030 00:01:30 GMT", now)).toBe(90);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
