import { RequestCheck } from "@svc/platform";
import { describe, expect, it } from "vitest";
import { descriptionOf, rateLimitOf, recoveryWindowOf } from "./request-rules.ts";

const now = new Date("2030-01-15T12:00:00Z");

/** A rule's answer and the problems it recorded on a fresh check. */
function judged<T>(rule: (check: RequestCheck) => T): { value: T; problems: readonly string[] } {
  const check = new RequestCheck();
  const value = rule(check);
  return { value, problems: check.problems };
}

describe("the recovery window", () => {
  it("accepts since within 14 days and defaults until to now", () => {
    expect(judged((check) => recoveryWindowOf(check, "2030-01-02T00:00:00Z", undefined, now))).toEqual({
      value: { since: new Date("2030-01-02T00:00:00Z"), until: now },
      problems: [],
    });
  });

  it("refuses a since more than 14 days ago, a missing one, and an until not after since", () => {
    expect(judged((check) => recoveryWindowOf(check, "2030-01-01T11:59:59Z", undefined, now)).problems).toEqual(["since must be at most 14 days ago"]);
    expect(judged((check) => recoveryWindowOf(check, "", undefined, now)).problems).toEqual(["since is required (an ISO 8601 date-time with a UTC offset)"]);
    expect(judged((check) => recoveryWindowOf(check, "2030-01-10T00:00:00Z", "2030-01-10T00:00:00Z", now)).problems).toEqual(["until must be after since"]);
  });

  it("names each malformed bound", () => {
    expect(judged((check) => recoveryWindowOf(check, "yesterday", "2030-02-30T00:00:00Z", now)).problems).toEqual([
      "since must be an ISO 8601 date-time with a UTC offset, for example 2025-06-01T09:00:00.000Z",
      "until is not a calendar date (2030-02-30 does not exist)",
    ]);
  });
});

describe("descriptions and rate limits", () => {
  it("trims a description and allows newlines and tabs but no other control characters", () => {
    expect(judged((check) => descriptionOf(check, "  Calendar sync\n\tteam Atlas  "))).toEqual({ value: "Calendar sync\n\tteam Atlas", problems: [] });
    expect(judged((check) => descriptionOf(check, "bell\u0007")).problems).toEqual([
      "description must not contain control characters other than newline and tab",
    ]);
    expect(judged((check) => descriptionOf(check, "x".repeat(501))).problems).toEqual(["description must be at most 500 characters"]);
    expect(judged((check) => descriptionOf(check, "é".repeat(500))).problems).toEqual([]);
  });

  it("takes 1 to 1000 deliveries per second", () => {
    expect([1, 1000].map((value) => judged((check) => rateLimitOf(check, value)).problems)).toEqual([[], []]);
    expect(judged((check) => rateLimitOf(check, 0)).problems[0]).toMatch(/between 1 and 1000/);
    expect(judged((check) => rateLimitOf(check, 1001)).problems[0]).toMatch(/between 1 and 1000/);
  });
});
