import { describe, expect, it } from "vitest";
import { disableDecision } from "./disable-policy.ts";

const fiveDays = 5 * 24 * 3600 * 1000;
const policy = { disableAfterMs: fiveDays };
const now = new Date("2026-01-10T12:00:00.000Z");
const ago = (ms: number) => new Date(now.getTime() - ms);

describe("disable decision", () => {
  it("disables at once on 410 Gone, even on the first failure", () => {
    expect(disableDecision({ statusCode: 410, attemptedAt: now }, now, policy)).toEqual({ reason: "the endpoint answered 410 Gone", trigger: "gone" });
    expect(disableDecision({ statusCode: 410, attemptedAt: now }, null, policy)?.trigger).toBe("gone");
  });

  it("keeps a failing endpoint enabled until it has failed for the whole period", () => {
    expect(disableDecision({ statusCode: 500, attemptedAt: now }, ago(fiveDays - 1), policy)).toBeUndefined();
    expect(disableDecision({ attemptedAt: now }, ago(1_000), policy)).toBeUndefined();
  });

  it("disables once the streak has lasted the period, naming when it began", () => {
    const since = ago(fiveDays);
    expect(disableDecision({ statusCode: 503, attemptedAt: now }, since, policy)).toEqual({
      reason: `failing without a successful delivery since ${since.toISOString()}`,
      trigger: "continuous_failure",
    });
    expect(disableDecision({ attemptedAt: now }, ago(fiveDays + 60_000), policy)?.trigger).toBe("continuous_failure");
  });

  it("never disables without a streak, whatever the status (other than 410)", () => {
    for (const statusCode of [undefined, 400, 404, 429, 500]) expect(disableDecision({ statusCode, attemptedAt: now }, null, policy)).toBeUndefined();
  });

  it("a 410 wins over the streak: the trigger says the endpoint is gone", () => {
    expect(disableDecision({ statusCode: 410, attemptedAt: now }, ago(10 * fiveDays), policy)?.trigger).toBe("gone");
  });
});
