import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  changedFields,
  DEFAULT_SETTINGS,
  parseOffsetDateTime,
  validateMeetingRequest,
  validateMeetingUpdate,
  type MeetingRequestInput,
} from "./meeting-request.ts";

const valid: MeetingRequestInput = { title: "Standup", attendees: [] };

/** The INVALID_ARGUMENT message the rules produce for `input`. */
function problemsOf(input: MeetingRequestInput): string {
  try {
    validateMeetingRequest(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    return (error as ConnectError).rawMessage;
  }
  throw new Error("expected the request to be refused");
}

describe("title", () => {
  it("is trimmed", () => {
    expect(validateMeetingRequest({ ...valid, title: "  Standup \n" }).title).toBe("Standup");
  });

  it.each(["", "   ", "\t\n"])("is refused when empty after trimming (%j)", (title) => {
    expect(problemsOf({ ...valid, title })).toBe("title is required and must not be empty");
  });

  // A NUL reached Postgres and failed the insert with a 500 (found by schemathesis).
  it.each(["Stand\u0000up", "Stand\nup", "a\u2028b", "bell\u0007"])("is refused with control characters or line breaks inside (%j)", (title) => {
    expect(problemsOf({ ...valid, title })).toBe("title must be one line without control characters");
  });

  it("accepts 255 characters and refuses 256, counting characters rather than UTF-16 units", () => {
    expect(validateMeetingRequest({ ...valid, title: "x".repeat(255) }).title).toHaveLength(255);
    expect(validateMeetingRequest({ ...valid, title: "😀".repeat(255) }).title).toBe("😀".repeat(255));
    expect(problemsOf({ ...valid, title: "x".repeat(256) })).toBe("title must be at most 255 characters");
  });
});

describe("start", () => {
  it("absent means no start", () => {
    expect(validateMeetingRequest(valid).start).toBeNull();
  });

  it.each([
    ["2025-06-01T09:00:00.000Z", "2025-06-01T09:00:00.000Z"],
    ["2025-06-01T09:00:00Z", "2025-06-01T09:00:00.000Z"],
    ["2025-06-01T09:00Z", "2025-06-01T09:00:00.000Z"],
    ["2025-06-01T11:00:00+02:00", "2025-06-01T09:00:00.000Z"],
    ["2025-06-01T04:30:00-0430", "2025-06-01T09:00:00.000Z"],
    ["2025-06-01t09:00:00.123456z", "2025-06-01T09:00:00.123Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
    ["2000-02-29T00:00:00Z", "2000-02-29T00:00:00.000Z"],
  ])("accepts %s as %s", (input, expected) => {
    expect(validateMeetingRequest({ ...valid, start: input }).start!.toISOString()).toBe(expected);
  });

  it("keeps years below 100 as written", () => {
    const parsed = parseOffsetDateTime("0042-01-01T00:00:00Z");
    expect(parsed.ok && parsed.date.getUTCFullYear()).toBe(42);
  });

  it.each(["2025-06-01T09:00:00", "2025-06-01T09:00:00.000", "2025-06-01T09:00"])("refuses %s: no UTC offset", (start) => {
    expect(problemsOf({ ...valid, start })).toBe('start must include a UTC offset ("Z" or ±hh:mm), for example 2025-06-01T09:00:00.000Z');
  });

  it.each(["", "tomorrow", "2025-06-01", "1748768400000", "2025-06-01 09:00:00Z", "Sun, 01 Jun 2025 09:00:00 GMT", "2025-6-1T09:00:00Z"])(
    "refuses %j: not an ISO 8601 date-time",
    (start) => {
      expect(problemsOf({ ...valid, start })).toBe("start must be an ISO 8601 date-time with a UTC offset, for example 2025-06-01T09:00:00.000Z");
    },
  );

  it.each(["2025-02-30T09:00:00Z", "2025-02-29T09:00:00Z", "1900-02-29T09:00:00Z", "2025-13-01T09:00:00Z", "2025-04-31T09:00:00Z", "2025-00-10T09:00:00Z"])(
    "refuses %s: not a calendar date",
    (start) => {
      expect(problemsOf({ ...valid, start })).toMatch(/^start is not a calendar date \(.+ does not exist\)$/);
    },
  );

  it.each(["2025-06-01T24:00:00Z", "2025-06-01T09:60:00Z", "2025-06-01T09:00:60Z"])("refuses %s: impossible time of day", (start) => {
    expect(problemsOf({ ...valid, start })).toMatch(/^start has an impossible time of day/);
  });

  it("refuses an impossible offset", () => {
    expect(problemsOf({ ...valid, start: "2025-06-01T09:00:00+24:00" })).toBe("start has an impossible UTC offset");
  });
});

describe("attendees", () => {
  it("deduplicates case-insensitively, keeping the first spelling and the order", () => {
    const { attendees } = validateMeetingRequest({
      ...valid,
      attendees: ["Ann@Example.com", "bob@example.com", "ann@example.COM", " bob@example.com "],
    });
    expect(attendees).toEqual(["Ann@Example.com", "bob@example.com"]);
  });

  it("accepts 100 addresses and refuses 101", () => {
    const addresses = (count: number) => Array.from({ length: count }, (_, index) => `person${index}@example.com`);
    expect(validateMeetingRequest({ ...valid, attendees: addresses(100) }).attendees).toHaveLength(100);
    expect(problemsOf({ ...valid, attendees: addresses(101) })).toBe("attendees must list at most 100 e-mail addresses (got 101)");
  });

  it("names the invalid addresses", () => {
    expect(problemsOf({ ...valid, attendees: ["ok@example.com", "not-an-email", "", "a@b"] })).toBe(
      'attendees must be e-mail addresses; not valid: "not-an-email", "", "a@b"',
    );
  });

  it("shows at most five invalid addresses and counts the rest", () => {
    const bad = Array.from({ length: 8 }, (_, index) => `bad${index}`);
    expect(problemsOf({ ...valid, attendees: bad })).toBe('attendees must be e-mail addresses; not valid: "bad0", "bad1", "bad2", "bad3", "bad4" and 3 more');
  });
});

it("names every invalid field in one message", () => {
  expect(problemsOf({ title: " ", start: "2025-02-30T09:00:00Z", attendees: ["nope"] })).toBe(
    'title is required and must not be empty; start is not a calendar date (2025-02-30 does not exist); attendees must be e-mail addresses; not valid: "nope"',
  );
});

describe("the recording setting", () => {
  it("is off unless given; manual and auto are taken; anything else is refused by name", () => {
    expect(validateMeetingRequest({ title: "t", attendees: [] }).settings.recording).toBe("off");
    expect(validateMeetingRequest({ title: "t", attendees: [], settings: { recording: "auto" } }).settings.recording).toBe("auto");
    expect(() => validateMeetingRequest({ title: "t", attendees: [], settings: { recording: "always" as never } })).toThrow(
      "recording must be off, manual or auto",
    );
  });

  it("an update naming it changes it (and reports it changed); one not naming it keeps it", () => {
    const current = validateMeetingRequest({ title: "t", attendees: [], settings: { recording: "manual" } });
    const kept = validateMeetingUpdate(["title"], { title: "u", attendees: [] }, current);
    expect(kept.settings.recording).toBe("manual");
    const changed = validateMeetingUpdate(["settings.recording"], { title: "", attendees: [], settings: { recording: "auto" } }, current);
    expect(changed.settings.recording).toBe("auto");
    expect(changedFields(current, changed)).toEqual(["recording"]);
  });
});

describe("the transcription setting", () => {
  it("takes the organization's default unless given; off and on are taken; anything else is refused by name", () => {
    expect(validateMeetingRequest({ title: "t", attendees: [] }).settings.transcription).toBe("off");
    const orgDefault = { ...DEFAULT_SETTINGS, transcription: "on" as const };
    expect(validateMeetingRequest({ title: "t", attendees: [] }, orgDefault).settings.transcription).toBe("on");
    expect(validateMeetingRequest({ title: "t", attendees: [], settings: { transcription: "off" } }, orgDefault).settings.transcription).toBe("off");
    expect(() => validateMeetingRequest({ title: "t", attendees: [], settings: { transcription: "auto" as never } })).toThrow(
      "transcription must be off or on",
    );
  });

  it("an update naming it changes it (and reports it changed); one not naming it keeps it", () => {
    const current = validateMeetingRequest({ title: "t", attendees: [], settings: { transcription: "on" } });
    expect(validateMeetingUpdate(["title"], { title: "u", attendees: [] }, current).settings.transcription).toBe("on");
    const changed = validateMeetingUpdate(["settings.transcription"], { title: "", attendees: [], settings: { transcription: "off" } }, current);
    expect(changed.settings.transcription).toBe("off");
    expect(changedFields(current, changed)).toEqual(["transcription"]);
  });
});
