import { describe, expect, it } from "vitest";
import { flatRows, scansIn, seqScansOn, type PlanNode } from "./growth-goals.ts";

const measured = (size: number, p99Ms: number, errors = 0) => ({ size, row: { scenario: `at ${size}`, p99Ms, errors } });

describe("growth goals", () => {
  it("meets flat within 2× only when the largest size's p99 is at most twice the smallest's and nothing failed", () => {
    const flat = flatRows([measured(10, 20), measured(100, 25), measured(1000, 40)]);
    expect(flat.map((row) => row.met)).toEqual([undefined, undefined, true]);
    expect(flat[2]).toMatchObject({ goal: "p99 ≤ 2× the 10 row's", note: "2.00× the 10 row's p99" });

    expect(flatRows([measured(10, 20), measured(1000, 41)])[1]!.met).toBe(false);
    expect(flatRows([measured(10, 20, 1), measured(1000, 20)])[1]!.met).toBe(false);
  });

  it("keeps a goal the largest row already had, and fails with it", () => {
    const largest = { size: 1000, row: { scenario: "claim", p99Ms: 10, errors: 0, goal: "no Seq Scan on a big table", met: false } };
    const [, judged] = flatRows([measured(10, 10), largest]);
    expect(judged).toMatchObject({ goal: "no Seq Scan on a big table; p99 ≤ 2× the 10 row's", met: false });
  });

  it("lists a plan's scans at every depth and finds sequential scans of the named tables only", () => {
    const plan: PlanNode = {
      "Node Type": "ModifyTable",
      "Relation Name": "deliveries",
      Plans: [
        { "Node Type": "Nested Loop", Plans: [{ "Node Type": "Seq Scan", "Relation Name": "subscriptions" }] },
        { "Node Type": "Index Scan", "Relation Name": "deliveries", "Index Name": "deliveries_due" },
        { "Node Type": "Hash", Plans: [{ "Node Type": "Seq Scan", "Relation Name": "events" }] },
      ],
    };
    const scans = scansIn(plan);
    expect(scans).toEqual([
      { type: "ModifyTable", relation: "deliveries" },
      { type: "Seq Scan", relation: "subscriptions" },
      { type: "Index Scan", relation: "deliveries", index: "deliveries_due" },
      { type: "Seq Scan", relation: "events" },
    ]);
    expect(seqScansOn(scans, ["deliveries", "events"])).toEqual([{ type: "Seq Scan", relation: "events" }]);
  });
});
