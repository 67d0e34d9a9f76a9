import { describe, expect, it } from "vitest";
import { descriptionOrProblem, rateLimitProblem, recoveryWindowOrProblems } from "./request-rules.ts";

const now = new Date("2030-01-15T12:00:00Z");

describe("the recovery window", () => {
  it("accepts since within 14 days and defaults until to now", () => {
    expect(recoveryWindowOrProblems("2030-01-02T00:00:00Z", undefined, now)).toEqual({ since: new Date("2030-01-02T00:00:00Z"), until: now, problems: [] });
  });

  it("refuses a since more than 14 days ago, a missing one, and an until not after since", () => {
    expect(recoveryWindowOrProblems("2030-01-01T11:59:59Z", undefined, now).problems).toEqual(["since must be at most 14 days ago"]);
    expect(recoveryWindowOrProblems("", undefined, now).problems).toEqual(["since is required (an ISO 8601 date-time with a UTC offset)"]);
    expect(recoveryWindowOrProblems("2030-01-10T00:00:00Z", "2030-01-10T00:00:00Z", now).problems).toEqual(["until must be after since"]);
  });

  it("names each malformed bound", () => {
    expect(recoveryWindowOrProblems("yesterday", "2030-02-30T00:00:00Z", now).problems).toEqual([
      "since must be an ISO 8601 date-time with a UTC offset, for example 2025-06-01T09:00:00.000Z",
      "until is not a calendar date (2030-02-30 does not exist)",
    ]);
  });
});

describe("descriptions and rate limits", () => {
  it("trims a description and allows newlines and tabs but no other control characters", () => {
    expect(descriptionOrProblem("  Calendar sync\n\tteam Atlas  ")).toEqual({ description: "Calendar sync\n\tteam Atlas" });
    expect(descriptionOrProblem("bell\u0007").problem).toBe("description must not contain control characters other than newline and tab");
    expect(descriptionOrProblem("x".repeat(501)).problem).toBe("description must be at most 500 characters");
    expect(descriptionOrProblem("é".repeat(500)).problem).toBeUndefined();
  });

  it("takes 1 to 1000 deliveries per second", () => {
    expect([1, 1000].map(rateLimitProblem)).toEqual([undefined, undefined]);
    expect(rateLimitProblem(0)).toMatch(/between 1 and 1000/);
    expect(rateLimitProblem(1001)).toMatch(/between 1 and 1000/);
  });
});
