import { describe, expect, it } from "vitest";
import { byteRangeOf } from "./byte-range.ts";

describe("byte ranges of a recording file", () => {
  it("serves the whole file without a Range header, or with one that is not a byte range", () => {
    expect(byteRangeOf("", 1000)).toEqual({ kind: "whole" });
    expect(byteRangeOf("items=0-5", 1000)).toEqual({ kind: "whole" });
    expect(byteRangeOf("nonsense", 1000)).toEqual({ kind: "whole" });
  });

  it("serves the asked bytes, open-ended and suffix ranges included", () => {
    expect(byteRangeOf("bytes=0-", 1000)).toEqual({ kind: "partial", range: { start: 0, end: 999 } });
    expect(byteRangeOf("bytes=100-199", 1000)).toEqual({ kind: "partial", range: { start: 100, end: 199 } });
    expect(byteRangeOf("bytes=-100", 1000)).toEqual({ kind: "partial", range: { start: 900, end: 999 } });
    expect(byteRangeOf("bytes=900-5000", 1000)).toEqual({ kind: "partial", range: { start: 900, end: 999 } });
    expect(byteRangeOf("bytes=0-9,20-29", 1000)).toEqual({ kind: "partial", range: { start: 0, end: 29 } });
  });

  it("says when no asked range lies in the file", () => {
    expect(byteRangeOf("bytes=1000-", 1000)).toEqual({ kind: "unsatisfiable" });
  });
});
