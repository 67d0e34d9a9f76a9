// The measured per-unit costs the capacity model (capacity-model.ts) multiplies: read from a full
// `npm run bench`'s results.json (CPU per request of each process, memory) and from the printed
// tables of its cost sections (media server, recording, transcription: cost-tables.ts), never
// typed in by hand, so the model follows each new run.
import type { Row } from "./row.ts";
import { parseMediaCostTable, parseRecordingCostTable, parseTranscriptionCostTable } from "./cost-tables.ts";

/** What `npm run bench` writes to test/bench/results.json (the parts the model reads). */
export interface BenchResults {
  measuredAt: string;
  commit: string;
  machine: { cores: number; cpu: string };
  rows: Row[];
}

/** CPU microseconds per unit, by process (gateway, identity, meeting, webhook, postgres, kafka, redis, media server). */
export type CpuByProcess = Record<string, number>;

export interface UnitCosts {
  /** Where the figures come from (commit and time of the bench run, the printed outputs read). */
  source: string;
  /** `POST /api/v1/auth` with an API key (the gateway alone: identity's verification cache). */
  auth: CpuByProcess;
  /** `POST /api/v1/meeting` with two attendees: one hop to the meeting service, one statement. */
  meetingWrite: CpuByProcess;
  /** `POST /api/v1/meeting/:id/join` into an open room (no CreateRoom), 50 concurrent. */
  joinGrant: CpuByProcess;
  /** One webhook delivery end to end: the meeting's end through the API, its event through the outbox, Kafka and the dispatcher, the POST to a receiver. */
  delivery: CpuByProcess;
  /** The media server in a room of `participants` people (above its idle CPU), and the traffic it handled. */
  mediaServer: { participants: number; coresPerParticipant: number; mbpsPerParticipant: number; rssMiBPerParticipant: number };
  /** One grid recording (egress, its Chromium, Xvfb, PulseAudio). */
  recording: { cores: number; pssMiB: number };
  /** The transcription worker, per second of one speaker's audio, on the longest audio measured. */
  transcription: { cpuSecondsPerAudioSecond: number; peakRssMb: number; audioMinutes: number };
  /** Each service's RSS at the end of the bench's load (the larger of "end of the load" and "25 s later"), MB. */
  rssMb: Record<string, number>;
}

/** The µs fields of a row, without the load generator and the whole machine (which are not components). */
function components(row: Row): CpuByProcess {
  const { machine: _machine, bench: _bench, ...byProcess } = row.cpuMicrosPerRequest ?? {};
  return byProcess;
}

function rowStartingWith(results: BenchResults, prefix: string): Row {
  const row = results.rows.find((candidate) => candidate.scenario.startsWith(prefix));
  if (!row?.cpuMicrosPerRequest && !row?.note) throw new Error(`the bench results of ${results.commit} have no row "${prefix}…" with figures`);
  return row;
}

/** "130 → 191 → 136" of a memory row: idle, end of the load, 25 s later. */
function memoryRow(results: BenchResults, service: string): number[] {
  const note = rowStartingWith(results, `memory: ${service} RSS MB`).note!;
  return note.split("→").map((part) => Number(part.trim()));
}

/** The last table of each kind in the printed outputs (a later run wins). */
function lastOf<T>(tables: T[], what: string): T {
  const last = tables.at(-1);
  if (!last) throw new Error(`no ${what} table in the printed bench output given`);
  return last;
}

/**
 * The units from a full run's results.json and the printed output of bench runs that have the cost
 * sections (the full run's own output has recording and transcription; `--only=media` the media
 * server's). `peoplePerMeeting` picks the media server's room of that size (or the largest smaller one).
 */
export function unitsFromBench(results: BenchResults, printed: string, peoplePerMeeting: number, sourceNames: string[] = []): UnitCosts {
  const rooms = parseMediaCostTable(printed)
    .filter((room) => room.participants <= peoplePerMeeting)
    .sort((a, b) => a.participants - b.participants);
  const room = lastOf(
    rooms.filter((candidate) => candidate.participants === rooms.at(-1)?.participants),
    "media server cost",
  );
  const grid = lastOf(
    parseRecordingCostTable(printed).filter((recording) => recording.layout === "grid" && recording.concurrent === 1 && recording.accepted === 1),
    "recording cost (grid, 1 accepted)",
  );
  const transcription = lastOf(
    parseTranscriptionCostTable(printed).sort((a, b) => a.minutes - b.minutes),
    "transcription cost",
  );
  const services = ["gateway", "identity", "meeting", "webhook"];
  return {
    source: [`npm run bench at ${results.commit}, ${results.measuredAt}`, ...sourceNames].join("; "),
    auth: components(rowStartingWith(results, "POST /api/v1/auth (API key")),
    meetingWrite: components(rowStartingWith(results, "POST /api/v1/meeting (2 attendees)")),
    joinGrant: components(rowStartingWith(results, "POST /api/v1/meeting/:id/join")),
    delivery: components(rowStartingWith(results, "webhook pipeline:")),
    mediaServer: {
      participants: room.participants,
      coresPerParticipant: (room.mediaServerCores - room.idleCores) / room.participants,
      mbpsPerParticipant: (room.publishedMbps + room.forwardedMbps) / room.participants,
      rssMiBPerParticipant: room.mediaServerRssMiBAboveIdle / room.participants,
    },
    recording: { cores: grid.steadyCores, pssMiB: grid.pssMiBPerRecording },
    transcription: {
      cpuSecondsPerAudioSecond: transcription.workerCpuSecondsPerAudioSecond,
      peakRssMb: transcription.workerPeakRssMb,
      audioMinutes: transcription.minutes,
    },
    rssMb: Object.fromEntries(services.map((service) => [service, Math.max(...memoryRow(results, service).slice(1))])),
  };
}
