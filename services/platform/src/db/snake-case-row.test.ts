import { describe, expect, it } from "vitest";
import { fromSnakeCaseRow, type SnakeCaseRow } from "./snake-case-row.ts";

interface Visit {
  meetingId: string;
  displayName: string;
  leftAt: Date | null;
  visitorHash: Buffer | null;
  role: "guest";
}

describe("fromSnakeCaseRow", () => {
  it("puts each snake_case column under its camelCase field, the values untouched", () => {
    const leftAt = new Date("2030-01-02T03:04:05Z");
    const visitorHash = Buffer.from("ab", "hex");
    const row: SnakeCaseRow<Visit> = { meeting_id: "m1", display_name: "Ada", left_at: leftAt, visitor_hash: visitorHash, role: "guest" };
    const visit = fromSnakeCaseRow<Visit>(row);
    expect(visit).toEqual({ meetingId: "m1", displayName: "Ada", leftAt, visitorHash, role: "guest" });
    expect(visit.leftAt).toBe(leftAt);
    expect(visit.visitorHash).toBe(visitorHash);
  });

  it("keeps nulls and answers the same names for a second row", () => {
    const rows: SnakeCaseRow<Visit>[] = [
      { meeting_id: "m1", display_name: "Ada", left_at: null, visitor_hash: null, role: "guest" },
      { meeting_id: "m2", display_name: "Bo", left_at: null, visitor_hash: null, role: "guest" },
    ];
    expect(rows.map((row) => fromSnakeCaseRow<Visit>(row)).map(Object.keys)).toEqual([
      ["meetingId", "displayName", "leftAt", "visitorHash", "role"],
      ["meetingId", "displayName", "leftAt", "visitorHash", "role"],
    ]);
    expect(fromSnakeCaseRow<Visit>(rows[0]!).leftAt).toBeNull();
  });
});
