import { describe, expect, it } from "vitest";
import { isMeetingId, newMeetingId } from "./meeting-id.ts";

describe("meeting ids", () => {
  it("are 22 base64url characters carrying 128 random bits", () => {
    const id = newMeetingId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(id, "base64url")).toHaveLength(16);
  });

  it("do not repeat and use the whole alphabet over many draws", () => {
    const ids = Array.from({ length: 5_000 }, newMeetingId);
    expect(new Set(ids).size).toBe(ids.length);
    // Each position but the last (which carries 2 bits) sees nearly all 64 symbols.
    const firstSymbols = new Set(ids.map((id) => id[0]));
    expect(firstSymbols.size).toBeGreaterThan(60);
  });

  it("are recognised by shape, and nothing else is", () => {
    expect(isMeetingId(newMeetingId())).toBe(true);
    for (const other of ["", "abc", "x".repeat(23), "a/b+c=".padEnd(22, "a"), "../../etc/passwd/aaaaaa"]) expect(isMeetingId(other)).toBe(false);
  });
});
