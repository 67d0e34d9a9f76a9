import { describe, expect, it } from "vitest";
import {
  formatMediaCostTable,
  formatRecordingCostTable,
  formatTranscriptionCostTable,
  parseMediaCostTable,
  parseRecordingCostTable,
  parseTranscriptionCostTable,
  type MediaCost,
  type RecordingCost,
  type TranscriptionCost,
} from "./cost-tables.ts";

const rooms: MediaCost[] = [
  { participants: 2, seconds: 60, mediaServerCores: 0.052, idleCores: 0.004, publishedMbps: 3.1, forwardedMbps: 2.9, mediaServerRssMiBAboveIdle: 12.5 },
  { participants: 5, seconds: 61, mediaServerCores: 0.214, idleCores: 0.005, publishedMbps: 6.25, forwardedMbps: 21.5, mediaServerRssMiBAboveIdle: 30.2 },
];
const recordings: RecordingCost[] = [
  { layout: "idle egress", concurrent: 0, accepted: 0, refusals: [], steadyCores: 0.01, startCores: NaN, pssMiB: 48, pssMiBPerRecording: NaN },
  { layout: "grid", concurrent: 1, accepted: 1, refusals: [], steadyCores: 1.03, startCores: 0.81, pssMiB: 651, pssMiBPerRecording: 603 },
  {
    layout: "grid",
    concurrent: 2,
    accepted: 1,
    refusals: ["refused after 10.0 s: The operation was aborted due to timeout"],
    steadyCores: 1.01,
    startCores: 0.99,
    pssMiB: 626,
    pssMiBPerRecording: 578,
  },
];
const transcriptions: TranscriptionCost[] = [
  { minutes: 10, workerCpuSecondsPerAudioSecond: 0.081, workerPeakRssMb: 612, alone: { cpuSecondsPerAudioSecond: 0.07, peakRssMb: 768 } },
  { minutes: 60, workerCpuSecondsPerAudioSecond: 0.079, workerPeakRssMb: 640 },
];

describe("the cost sections' tables", () => {
  it("read back what the media server section printed, among other output", () => {
    const printed = `bench: something else\n${formatMediaCostTable(rooms)}\n| not | this table |\n`;
    expect(parseMediaCostTable(printed)).toEqual(rooms);
  });

  it("read back every recording row, the idle egress and a refusal included", () => {
    expect(parseRecordingCostTable(formatRecordingCostTable(20, recordings))).toEqual(recordings);
  });

  it("read the recording table as the bench printed it before the table had one definition", () => {
    const printed = [
      "Recording cost, 20 s per measurement (one participant, 1280x720 H.264 + AAC for grid; AAC for audio):",
      "| layout | concurrent | requests | cores steady | cores from the requests until active (5 s at least) | PSS MiB (egress + its recordings + PulseAudio) | PSS MiB per recording above idle |",
      "|---|---|---|---|---|---|---|",
      "| idle egress | - | - | 0.01 | - | 48 | - |",
      "| grid | 1 | 1 accepted | 1.03 | 0.81 | 651 | 603 |",
      "",
    ].join("\n");
    expect(parseRecordingCostTable(printed).map((row) => [row.layout, row.accepted, row.steadyCores, row.pssMiBPerRecording])).toEqual([
      ["idle egress", 0, 0.01, NaN],
      ["grid", 1, 1.03, 603],
    ]);
  });

  it("read back the transcription rows, with and without the model alone", () => {
    expect(parseTranscriptionCostTable(formatTranscriptionCostTable(transcriptions))).toEqual(transcriptions);
  });

  it("read every printing of a table, in order, so a later run can win", () => {
    const twice = `${formatMediaCostTable(rooms.slice(0, 1))}\n${formatMediaCostTable(rooms.slice(1))}`;
    expect(parseMediaCostTable(twice).map((room) => room.participants)).toEqual([2, 5]);
  });
});
