import parseRange from "range-parser";
import type { ByteRange } from "./recording-storage.ts";

/**
 * The part of a file of `size` bytes that an HTTP Range header asks for (RFC 9110 §14): the
 * whole file without a header (or with one that is not a byte range, which HTTP says to ignore);
 * `unsatisfiable` when no asked range lies in the file. Several ranges are served as the one
 * range that covers them (browsers' video elements ask for one).
 */
export function byteRangeOf(header: string, size: number): { kind: "whole" } | { kind: "partial"; range: ByteRange } | { kind: "unsatisfiable" } {
  if (!header || size === 0) return { kind: "whole" };
  const ranges = parseRange(size, header, { combine: true });
  if (ranges === -1) return { kind: "unsatisfiable" };
  if (ranges === -2 || ranges.type !== "bytes" || ranges.length === 0) return { kind: "whole" };
  const start = Math.min(...ranges.map((range) => range.start));
  const end = Math.max(...ranges.map((range) => range.end));
  return { kind: "partial", range: { start, end } };
}
