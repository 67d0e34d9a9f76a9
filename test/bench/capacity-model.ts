// The capacity model of docs/capacity.md: from the measured per-unit CPU and memory (capacity-units.ts)
// and a stated workload (concurrent meetings of 5 people with Cal.com-like API traffic), the
// cores, replicas and memory each component needs, and the order in which components saturate.
//
//   scripts/node test/bench/capacity-model.ts <results.json> <bench output>... [--meetings=1000,10000]
//
// <results.json>: a full `npm run bench`'s record; <bench output>: the printed output of runs with
// the cost sections (the full run's own: recording and transcription; `npm run bench --
// --only=media`: the media server). Prints markdown (docs/capacity.md quotes it).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { unitsFromBench, type BenchResults, type CpuByProcess, type UnitCosts } from "./capacity-units.ts";

/** What the platform serves: each assumption docs/capacity.md states and argues. */
export interface Workload {
  concurrentMeetings: number;
  peoplePerMeeting: number;
  /** Mean length of a meeting: with the concurrency, how many start (and end) per second (Little's law). */
  meanMeetingMinutes: number;
  /** `POST /auth` credential checks per booked meeting. */
  authChecksPerMeeting: number;
  /** Meeting writes through the API per held meeting: creations (cancelled bookings' too), updates, deletions, reads of recordings and transcripts; each costed as `POST /meeting`. */
  meetingCallsPerMeeting: number;
  /** Join grants each person takes (the pre-join asks for one, a lingering person refreshes it, a rejoin takes another). */
  grantsPerPerson: number;
  /** Share of meetings recorded (grid layout, the whole meeting). */
  recordedShare: number;
  /** Share of the recorded meetings also transcribed (each person's own audio track). */
  transcribedShare: number;
  /** The traffic one person makes the media server handle (sent to it and forwarded to them), Mbit/s. */
  mediaMbpsPerPerson: number;
}

/** How a component's cores become replicas (docs/capacity.md "Sizing rules"). */
export const sizing = {
  /** A Node service's event loop runs on one core: a replica is planned at 0.7 of one, for bursts. */
  nodeCoresPerReplica: 0.7,
  /** Two of each, so one can be lost or rolled. */
  minReplicas: 2,
  /** Media server nodes of 8 cores, planned at 70 %. */
  mediaServerCoresPerNode: 8 * 0.7,
  /** The media server's own RSS with nobody in it (../MEDIA.md: about 65 MiB idle). */
  mediaServerIdleMiB: 65,
  /** The chart's recording pods are sized for one grid recording each (values.yaml recording.resources). */
  recordingsPerEgressPod: 1,
  /** The chart's transcriber requests one CPU per pod, one job at a time. */
  transcriberCoresPerPod: 1,
} as const;

/** livekit-client's defaults the room page publishes with: a grid tile takes the h360 layer (450 kbit/s), audio the `music` preset (48 kbit/s). */
const VIDEO_LAYER_MBPS = 0.45;
const AUDIO_MBPS = 0.048;

/** Each person sends one video layer and audio and receives everyone else's: the media server handles all of it. */
export const mediaMbpsPerPerson = (peoplePerMeeting: number) => (VIDEO_LAYER_MBPS + AUDIO_MBPS) * peoplePerMeeting;

/** Cal.com-like traffic (docs/capacity.md "The workload"). */
export function calComLike(concurrentMeetings: number): Workload {
  const peoplePerMeeting = 5;
  return {
    concurrentMeetings,
    peoplePerMeeting,
    meanMeetingMinutes: 30,
    authChecksPerMeeting: 1,
    // 1.1 creations (a tenth of bookings are cancelled: created, then deleted) + 0.2 updates
    // (reschedules) + 0.1 deletions, + 0.3 reads (3 per recorded meeting: its recordings, a
    // download link, its transcript).
    meetingCallsPerMeeting: 1.1 + 0.2 + 0.1 + 0.3,
    grantsPerPerson: 2,
    recordedShare: 0.1,
    transcribedShare: 0.5,
    mediaMbpsPerPerson: mediaMbpsPerPerson(peoplePerMeeting),
  };
}

/** Units of work per second (per unit of time for the concurrent ones). */
export interface Rates {
  meetingsPerSecond: number;
  authPerSecond: number;
  meetingCallsPerSecond: number;
  grantsPerSecond: number;
  /** Webhook deliveries: meeting.started and .ended, a participant's joined and left, recording.ready and transcript.ready. */
  deliveriesPerSecond: number;
  concurrentPeople: number;
  concurrentRecordings: number;
  /** Seconds of speakers' audio to transcribe per second. */
  audioSecondsPerSecond: number;
}

export function rates(workload: Workload): Rates {
  const meetingsPerSecond = workload.concurrentMeetings / (workload.meanMeetingMinutes * 60);
  const recordedPerSecond = meetingsPerSecond * workload.recordedShare;
  const transcribedPerSecond = recordedPerSecond * workload.transcribedShare;
  const eventsPerMeeting = 2 + 2 * workload.peoplePerMeeting;
  return {
    meetingsPerSecond,
    authPerSecond: meetingsPerSecond * workload.authChecksPerMeeting,
    meetingCallsPerSecond: meetingsPerSecond * workload.meetingCallsPerMeeting,
    grantsPerSecond: meetingsPerSecond * workload.peoplePerMeeting * workload.grantsPerPerson,
    deliveriesPerSecond: meetingsPerSecond * eventsPerMeeting + recordedPerSecond + transcribedPerSecond,
    concurrentPeople: workload.concurrentMeetings * workload.peoplePerMeeting,
    concurrentRecordings: workload.concurrentMeetings * workload.recordedShare,
    audioSecondsPerSecond: transcribedPerSecond * workload.meanMeetingMinutes * 60 * workload.peoplePerMeeting,
  };
}

/** One component's need at one workload. */
export interface ComponentNeed {
  component: string;
  cores: number;
  /** Replicas, pods or nodes (undefined for the managed stores, sized by their provider). */
  replicas?: number;
  /** Memory of all replicas, MiB (undefined where not measured). */
  memoryMiB?: number;
  /** Concurrent meetings one replica (one pod, one node) holds before it saturates. */
  meetingsPerReplica?: number;
}

const NODE_SERVICES = ["gateway", "identity", "meeting", "webhook"];
const STORES = ["postgres", "kafka", "redis"];

/** Cores a process spends at these rates, from its µs per unit. */
function processCores(process: string, units: UnitCosts, rate: Rates): number {
  const micros = (costs: CpuByProcess) => costs[process] ?? 0;
  return (
    (rate.authPerSecond * micros(units.auth) +
      rate.meetingCallsPerSecond * micros(units.meetingWrite) +
      rate.grantsPerSecond * micros(units.joinGrant) +
      rate.deliveriesPerSecond * micros(units.delivery)) /
    1e6
  );
}

/** Cores, replicas and memory of every component for one workload. */
export function plan(units: UnitCosts, workload: Workload): ComponentNeed[] {
  const rate = rates(workload);
  const coresPerMeeting = (cores: number) => cores / workload.concurrentMeetings;
  const services = NODE_SERVICES.map((component): ComponentNeed => {
    const cores = processCores(component, units, rate);
    const replicas = Math.max(sizing.minReplicas, Math.ceil(cores / sizing.nodeCoresPerReplica));
    return {
      component,
      cores,
      replicas,
      memoryMiB: replicas * (units.rssMb[component] ?? NaN),
      meetingsPerReplica: sizing.nodeCoresPerReplica / coresPerMeeting(cores),
    };
  });
  const stores = STORES.map((component): ComponentNeed => ({ component, cores: processCores(component, units, rate) }));

  // The media server's CPU, scaled from the measured room's traffic to the workload's.
  const media = units.mediaServer;
  const mediaCores =
    rate.concurrentPeople * media.coresPerParticipant * (workload.mediaMbpsPerPerson / media.mbpsPerParticipant) + processCores("media server", units, rate);
  const mediaNodes = Math.max(1, Math.ceil(mediaCores / sizing.mediaServerCoresPerNode));
  const recordingPods = Math.ceil(rate.concurrentRecordings / sizing.recordingsPerEgressPod);
  const transcriptionCores = rate.audioSecondsPerSecond * units.transcription.cpuSecondsPerAudioSecond;
  const transcriberPods = Math.ceil(transcriptionCores / sizing.transcriberCoresPerPod);
  return [
    ...services,
    ...stores,
    {
      component: "media server",
      cores: mediaCores,
      replicas: mediaNodes,
      memoryMiB: mediaNodes * sizing.mediaServerIdleMiB + rate.concurrentPeople * media.rssMiBPerParticipant,
      meetingsPerReplica: sizing.mediaServerCoresPerNode / coresPerMeeting(mediaCores),
    },
    {
      component: "recorder (egress)",
      cores: rate.concurrentRecordings * units.recording.cores,
      replicas: recordingPods,
      memoryMiB: rate.concurrentRecordings * units.recording.pssMiB,
      meetingsPerReplica: sizing.recordingsPerEgressPod / (workload.recordedShare || NaN),
    },
    {
      component: "transcriber",
      cores: transcriptionCores,
      replicas: transcriberPods,
      memoryMiB: transcriberPods * units.transcription.peakRssMb,
      meetingsPerReplica: sizing.transcriberCoresPerPod / coresPerMeeting(transcriptionCores),
    },
  ];
}

/** Kubernetes' CPU quantity ("250m", "0.5", "2") in cores. */
export const cpuQuantityCores = (quantity: string) => (quantity.endsWith("m") ? Number(quantity.slice(0, -1)) / 1000 : Number(quantity));

/** The most units per second `cores` can serve at `micros` of CPU per unit (a CPU limit, a machine). */
export const requestsPerSecondWithin = (cores: number, micros: number) => (cores * 1e6) / micros;

/** The components that hold the fewest meetings per replica first: the order they saturate as meetings grow. */
export function saturationOrder(needs: ComponentNeed[]): ComponentNeed[] {
  return needs.filter((need) => Number.isFinite(need.meetingsPerReplica)).sort((a, b) => a.meetingsPerReplica! - b.meetingsPerReplica!);
}

const format = (value: number | undefined, digits = 0) =>
  value === undefined || !Number.isFinite(value) ? "-" : value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The markdown docs/capacity.md shows: units, rates, then each workload's needs, and the saturation order. */
export function report(units: UnitCosts, workloads: Workload[]): string {
  const micros = (costs: CpuByProcess) =>
    Object.entries(costs)
      .filter(([, value]) => value >= 1)
      .map(([process, value]) => `${process} ${format(value)}`)
      .join(" · ");
  const media = units.mediaServer;
  const lines = [
    `Units (${units.source}):`,
    "",
    "| unit | CPU µs per unit, by process | memory |",
    "|---|---|---|",
    `| \`POST /auth\` (API key) | ${micros(units.auth)} | |`,
    `| a meeting call (\`POST /meeting\`, 2 attendees) | ${micros(units.meetingWrite)} | |`,
    `| a join grant into an open room | ${micros(units.joinGrant)} | |`,
    `| a webhook delivery, end to end | ${micros(units.delivery)} | |`,
    `| a person in a room of ${media.participants}, per second | media server ${format(media.coresPerParticipant * 1e6)}, ${format(media.coresPerParticipant * 60, 2)} CPU-s per participant-minute, at ${format(media.mbpsPerParticipant, 2)} Mbit/s handled per person (the model scales it to ${format(workloads[0]!.mediaMbpsPerPerson, 2)}) | media server ${format(media.rssMiBPerParticipant, 1)} MiB per person |`,
    `| a grid recording, per second | egress ${format(units.recording.cores * 1e6)} | ${format(units.recording.pssMiB)} MiB PSS |`,
    `| a second of one speaker's audio transcribed (${units.transcription.audioMinutes} min measured) | transcriber ${format(units.transcription.cpuSecondsPerAudioSecond * 1e6)} | peak ${format(units.transcription.peakRssMb)} MB per worker |`,
    `| each service's RSS after the load (MB) | | ${Object.entries(units.rssMb)
      .map(([service, mb]) => `${service} ${format(mb)}`)
      .join(" · ")} |`,
    "",
  ];
  for (const workload of workloads) {
    const rate = rates(workload);
    const needs = plan(units, workload);
    lines.push(
      `${format(workload.concurrentMeetings)} concurrent meetings of ${workload.peoplePerMeeting} (${format(rate.concurrentPeople)} people, ${format(rate.concurrentRecordings)} recordings): ` +
        `${format(rate.meetingsPerSecond, 2)} meetings start per second; per second ${format(rate.authPerSecond, 1)} \`POST /auth\`, ${format(rate.meetingCallsPerSecond, 1)} meeting calls, ` +
        `${format(rate.grantsPerSecond, 1)} join grants, ${format(rate.deliveriesPerSecond, 1)} webhook deliveries, ${format(rate.audioSecondsPerSecond)} s of audio to transcribe.`,
      "",
      "| component | cores | replicas (pods, nodes) | memory GiB | meetings per replica |",
      "|---|---|---|---|---|",
      ...needs.map(
        (need) =>
          `| ${need.component} | ${format(need.cores, 2)} | ${format(need.replicas)} | ${format(need.memoryMiB === undefined ? undefined : need.memoryMiB / 1024, 1)} | ${format(need.meetingsPerReplica)} |`,
      ),
      `| **total** | **${format(
        needs.reduce((sum, need) => sum + need.cores, 0),
        1,
      )}** | | **${format(needs.reduce((sum, need) => sum + (need.memoryMiB ?? 0), 0) / 1024, 1)}** | |`,
      "",
      `The media server unscaled (at the traffic the bench's browsers made, ${format(media.mbpsPerParticipant, 2)} Mbit/s per person, a lower bound): ` +
        `${format(rate.concurrentPeople * media.coresPerParticipant, 1)} cores, ${format(Math.ceil((rate.concurrentPeople * media.coresPerParticipant) / sizing.mediaServerCoresPerNode))} nodes.`,
      "",
    );
  }
  const order = saturationOrder(plan(units, workloads[0]!));
  lines.push(
    `Saturation order, one replica of each, meetings rising: ${order.map((need) => `${need.component} (${format(need.meetingsPerReplica)})`).join(" → ")}.`,
    "",
  );
  return lines.join("\n");
}

async function main() {
  const args = process.argv.slice(2);
  const meetings = (args.find((arg) => arg.startsWith("--meetings="))?.slice("--meetings=".length) ?? "1000,10000").split(",").map(Number);
  const [resultsFile, ...printedFiles] = args.filter((arg) => !arg.startsWith("--"));
  if (!resultsFile || printedFiles.length === 0) {
    throw new Error("usage: capacity-model.ts <results.json> <bench output>... [--meetings=1000,10000]");
  }
  const results = JSON.parse(readFileSync(resultsFile, "utf8")) as BenchResults;
  const printed = printedFiles.map((file) => readFileSync(file, "utf8")).join("\n");
  const workloads = meetings.map(calComLike);
  const units = unitsFromBench(results, printed, workloads[0]!.peoplePerMeeting, [`tables from ${printedFiles.join(", ")}`]);
  process.stdout.write(report(units, workloads));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
