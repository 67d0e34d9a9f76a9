// How the growth rows are judged: the largest size against the smallest, and a plan's scans.
import type { Row } from "./row.ts";

/** The largest size's p99 may be at most this many times the smallest size's. */
export const FLAT_WITHIN = 2;

export const sizeName = (size: number) => size.toLocaleString("en");

/** The rows of one measurement at every size (smallest first), the largest judged against the smallest. */
export function flatRows(measurements: { row: Row; size: number }[]): Row[] {
  const smallest = measurements[0]!;
  const largest = measurements.at(-1)!;
  const within = largest.row.p99Ms! / Math.max(smallest.row.p99Ms!, Number.EPSILON);
  largest.row.goal = [largest.row.goal, `p99 ≤ ${FLAT_WITHIN}× the ${sizeName(smallest.size)} row's`].filter(Boolean).join("; ");
  largest.row.met = within <= FLAT_WITHIN && (largest.row.met ?? true) && measurements.every(({ row }) => row.errors === 0);
  largest.row.note = [`${within.toFixed(2)}× the ${sizeName(smallest.size)} row's p99`, largest.row.note].filter(Boolean).join("; ");
  return measurements.map(({ row }) => row);
}

/** A node of `EXPLAIN (FORMAT JSON)` output, as far as the scans go. */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

export interface Scan {
  type: string;
  relation: string;
  index?: string;
}

const planNodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(planNodes)];

/** Every node of the plan that reads or writes a table, in plan order. */
export const scansIn = (plan: PlanNode): Scan[] =>
  planNodes(plan)
    .filter((node) => node["Relation Name"])
    .map((node) => ({ type: node["Node Type"], relation: node["Relation Name"]!, ...(node["Index Name"] ? { index: node["Index Name"] } : {}) }));

export const seqScansOn = (scans: Scan[], tables: string[]) => scans.filter((scan) => scan.type === "Seq Scan" && tables.includes(scan.relation));
