import { WebVTTParser } from "webvtt-parser";
import { describe, expect, it } from "vitest";
import { toWebVtt } from "./transcript-webvtt.ts";

describe("a transcript as WebVTT", () => {
  it("has one cue per segment with its times and its speaker as a voice tag, which a WebVTT parser reads back", () => {
    const file = toWebVtt([
      { speaker: "Ada Lovelace", start: 1.25, end: 3.5, text: "The birch canoe slid on the smooth planks." },
      { speaker: "Bob", start: 3661.007, end: 3662, text: "Glue the sheet to the dark blue background." },
    ]);
    expect(file).toContain("00:00:01.250 --> 00:00:03.500\n<v Ada Lovelace>The birch canoe");
    const parsed = new WebVTTParser().parse(file, "metadata");
    expect(parsed.errors).toEqual([]);
    expect(parsed.cues.map((cue) => [cue.startTime, cue.endTime])).toEqual([
      [1.25, 3.5],
      [3661.007, 3662],
    ]);
    expect(parsed.cues[1]!.text).toBe("<v Bob>Glue the sheet to the dark blue background.</v>");
  });

  it("escapes what would end a cue or open a tag: a name or text with <, >, & or a line break stays one cue of text", () => {
    const file = toWebVtt([{ speaker: "Eve <admin>\n-->", start: 0, end: 1, text: "a < b && c --> d\n\n2\n00:00:00.000 --> 00:00:01.000" }]);
    const parsed = new WebVTTParser().parse(file, "metadata");
    expect(parsed.errors).toEqual([]);
    expect(parsed.cues).toHaveLength(1);
    expect(parsed.cues[0]!.text).toBe("<v Eve &lt;admin&gt; --&gt;>a &lt; b &amp;&amp; c --&gt; d 2 00:00:00.000 --&gt; 00:00:01.000</v>");
  });

  it("is a valid empty file when nothing was said", () => {
    expect(toWebVtt([])).toBe("WEBVTT\n");
    expect(new WebVTTParser().parse(toWebVtt([]), "metadata").errors).toEqual([]);
  });
});
