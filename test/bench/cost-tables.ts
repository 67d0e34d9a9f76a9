// The tables the bench's cost sections print (media server, recording, transcription): each
// table's one definition, written by the section and read back from a bench's printed output by
// the capacity model (test/bench/capacity-model.ts), which needs their figures but not their
// stacks. Markdown, as docs/benchmarks.md quotes them.

/** The media server with `participants` people in one room (test/bench/media-cost.ts). */
export interface MediaCost {
  participants: number;
  seconds: number;
  /** The media server's CPU over the measurement, in cores. */
  mediaServerCores: number;
  /** Its CPU with nobody in it, measured just before the room filled (timers, its own housekeeping). */
  idleCores: number;
  /** What the pages sent to the media server (all their tracks and layers), Mbit/s. */
  publishedMbps: number;
  /** What the pages received from it, Mbit/s: the media server's forwarding. */
  forwardedMbps: number;
  mediaServerRssMiBAboveIdle: number;
}

/** One room composite recording run (test/bench/recording-cost.ts); `layout` "idle egress" is egress with none. */
export interface RecordingCost {
  layout: string;
  concurrent: number;
  accepted: number;
  /** Why the others were refused, with how long each refusal took. */
  refusals: string[];
  steadyCores: number;
  /** Cores from the requests until the recordings were active (5 s at least); NaN for idle egress. */
  startCores: number;
  pssMiB: number;
  /** NaN for idle egress. */
  pssMiBPerRecording: number;
}

/** The transcription worker on synthetic speech of `minutes` (test/bench/transcription-cost.ts). */
export interface TranscriptionCost {
  minutes: number;
  workerCpuSecondsPerAudioSecond: number;
  workerPeakRssMb: number;
  /** The model alone on the whole file (only for short audio). */
  alone?: { cpuSecondsPerAudioSecond: number; peakRssMb: number };
}

const MEDIA_TITLE = "Media server cost (LiveKit), one room, each person in the room page (Chromium, fake 720p camera with simulcast, fake microphone):";
const RECORDING_TITLE = "Recording cost, ";
const TRANSCRIPTION_TITLE = "Transcription cost (";

const cells = (line: string) =>
  line
    .slice(1, -1)
    .split("|")
    .map((cell) => cell.trim());

/** The data rows of the markdown table printed under the line starting with `title`, as cells (every table, when printed more than once). */
function tableRows(text: string, title: string): string[][] {
  const rows: string[][] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    if (!lines[index]!.startsWith(title)) continue;
    // The title, the header, the separator, then rows until the first line that is not one.
    for (let row = index + 3; row < lines.length && lines[row]!.startsWith("|"); row++) rows.push(cells(lines[row]!));
  }
  return rows;
}

const dash = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : "-");
const number = (cell: string | undefined) => (cell === undefined || cell === "-" ? NaN : Number(cell.replaceAll(",", "")));

export function formatMediaCostTable(rows: MediaCost[]): string {
  return [
    MEDIA_TITLE,
    "| people | seconds | media server cores | its cores idle, before | sent to it, Mbit/s | forwarded by it, Mbit/s | its RSS MiB above idle |",
    "|---|---|---|---|---|---|---|",
    ...rows.map(
      (row) =>
        `| ${row.participants} | ${row.seconds.toFixed(0)} | ${row.mediaServerCores.toFixed(3)} | ${row.idleCores.toFixed(3)} | ${row.publishedMbps.toFixed(2)} | ${row.forwardedMbps.toFixed(2)} | ${row.mediaServerRssMiBAboveIdle.toFixed(1)} |`,
    ),
    "",
  ].join("\n");
}

export function parseMediaCostTable(text: string): MediaCost[] {
  return tableRows(text, MEDIA_TITLE).map(([participants, seconds, cores, idle, published, forwarded, rss]) => ({
    participants: number(participants),
    seconds: number(seconds),
    mediaServerCores: number(cores),
    idleCores: number(idle),
    publishedMbps: number(published),
    forwardedMbps: number(forwarded),
    mediaServerRssMiBAboveIdle: number(rss),
  }));
}

export function formatRecordingCostTable(seconds: number, rows: RecordingCost[]): string {
  return [
    `${RECORDING_TITLE}${seconds} s per measurement (one participant, 1280x720 H.264 + AAC for grid; AAC for audio):`,
    "| layout | concurrent | requests | cores steady | cores from the requests until active (5 s at least) | PSS MiB (egress + its recordings + PulseAudio) | PSS MiB per recording above idle |",
    "|---|---|---|---|---|---|---|",
    ...rows.map((row) =>
      row.layout === "idle egress"
        ? `| idle egress | - | - | ${row.steadyCores.toFixed(2)} | - | ${row.pssMiB.toFixed(0)} | - |`
        : `| ${row.layout} | ${row.concurrent} | ${row.accepted} accepted${row.refusals.length ? `, ${row.refusals.join("; ")}` : ""} | ${row.steadyCores.toFixed(2)} | ${dash(row.startCores, 2)} | ${row.pssMiB.toFixed(0)} | ${dash(row.pssMiBPerRecording, 0)} |`,
    ),
    "",
  ].join("\n");
}

export function parseRecordingCostTable(text: string): RecordingCost[] {
  return tableRows(text, RECORDING_TITLE).map(([layout, concurrent, requests, steady, start, pss, perRecording]) => ({
    layout: layout!,
    concurrent: layout === "idle egress" ? 0 : number(concurrent),
    accepted: layout === "idle egress" ? 0 : number(/^(\d+) accepted/.exec(requests!)?.[1]),
    refusals: requests!.includes(", ") ? requests!.slice(requests!.indexOf(", ") + 2).split("; ") : [],
    steadyCores: number(steady),
    startCores: number(start),
    pssMiB: number(pss),
    pssMiBPerRecording: number(perRecording),
  }));
}

export function formatTranscriptionCostTable(rows: TranscriptionCost[]): string {
  return [
    `${TRANSCRIPTION_TITLE}synthetic speech, Opus in OGG; Whisper tiny.en int8, beam 5, 2 threads; pieces of 300 s):`,
    "| audio | worker CPU-s per audio-s | worker peak RSS MB | model alone CPU-s per audio-s | model alone peak RSS MB | worker / model alone (CPU) | goals met (≤ 0.3; ≤ 800 MB at 60 min) |",
    "|---|---|---|---|---|---|---|",
    ...rows.map((row) => {
      const met = row.workerCpuSecondsPerAudioSecond <= 0.3 && (row.minutes < 60 || row.workerPeakRssMb <= 800);
      const alone = row.alone
        ? `${row.alone.cpuSecondsPerAudioSecond.toFixed(3)} | ${row.alone.peakRssMb.toFixed(0)} | ${(row.workerCpuSecondsPerAudioSecond / row.alone.cpuSecondsPerAudioSecond).toFixed(2)}`
        : "not run | not run | -";
      return `| ${row.minutes} min | ${row.workerCpuSecondsPerAudioSecond.toFixed(3)} | ${row.workerPeakRssMb.toFixed(0)} | ${alone} | ${met ? "yes" : "no"} |`;
    }),
    "",
  ].join("\n");
}

export function parseTranscriptionCostTable(text: string): TranscriptionCost[] {
  return tableRows(text, TRANSCRIPTION_TITLE).map(([audio, perSecond, peak, alonePerSecond, alonePeak]) => ({
    minutes: number(/^(\d+) min$/.exec(audio!)?.[1]),
    workerCpuSecondsPerAudioSecond: number(perSecond),
    workerPeakRssMb: number(peak),
    ...(alonePerSecond === "not run" ? {} : { alone: { cpuSecondsPerAudioSecond: number(alonePerSecond), peakRssMb: number(alonePeak) } }),
  }));
}
