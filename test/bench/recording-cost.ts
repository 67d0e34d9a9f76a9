// What a recording costs on this machine: CPU and memory of LiveKit Egress per concurrent
// recording of each layout (grid: the whole room through egress's own Chromium; audio: audio only),
// and how many it accepts at once. It sizes egress's cpu_cost (scripts/egress-server.ts) and the
// chart's recording.resources (docs/benchmarks.md "Recording").
//
//   npm run bench (its "recording" section; alone: npm run bench -- --only=recording), or
//   eval "$(bash scripts/infra up)"; scripts/node test/bench/recording-cost.ts
//   RECORDING_BENCH_LAYOUTS=grid,audio  RECORDING_BENCH_CONCURRENCY=1,2  RECORDING_BENCH_SECONDS=20
//
// One Chromium participant with a fake camera and microphone is in the room. CPU is summed over
// egress's whole process tree (the service, each recording's handler, its Xvfb and Chromium) and
// PulseAudio, from /proc/<pid>/stat; memory is their proportional set size (PSS, shared pages split
// between the processes sharing them, so Chromium's processes are not counted several times).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as delay } from "node:timers/promises";
import { EgressClient, EgressStatus, EncodedFileOutput, EncodedFileType, RoomServiceClient } from "livekit-server-sdk";
import { launchChromium } from "../support/chromium.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { processTree } from "../support/process-tree.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { startStack } from "../support/stack.ts";
import { createTenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { cpuMs } from "./process-cpu.ts";
import { formatRecordingCostTable, type RecordingCost } from "./cost-tables.ts";

const layouts = (process.env.RECORDING_BENCH_LAYOUTS ?? "grid,audio").split(",") as ("grid" | "audio")[];
const concurrencies = (process.env.RECORDING_BENCH_CONCURRENCY ?? "1,2").split(",").map(Number);
const seconds = Number(process.env.RECORDING_BENCH_SECONDS ?? 20);
const START_WINDOW_MS = 5_000;

/** PulseAudio runs as a daemon of its own (spawned on first use), outside egress's tree. */
function pulseaudioPids(): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "pulseaudio";
      } catch {
        return false;
      }
    })
    .map(Number);
}

function pssMiB(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** CPU milliseconds and PSS of egress's tree and PulseAudio, now (with the pids, to diff CPU by pid). */
function sample(egressPid: number) {
  const pids = [...processTree(egressPid).map((process) => process.pid), ...pulseaudioPids()];
  return { cpu: new Map(pids.map((pid) => [pid, cpuMs(pid)])), pss: pids.reduce((total, pid) => total + pssMiB(pid), 0), processes: pids.length };
}

/** Cores used between two samples: only processes present in both (a process that ended takes its time with it). */
function coresBetween(before: ReturnType<typeof sample>, after: ReturnType<typeof sample>, ms: number): number {
  let used = 0;
  for (const [pid, end] of after.cpu) {
    const start = before.cpu.get(pid) ?? 0; // a process born in between: all its time is in the window
    if (Number.isFinite(end)) used += end - (Number.isFinite(start) ? start : 0);
  }
  return used / ms;
}

/** Measures each layout at each concurrency on a stack of its own; returns the table (markdown). */
export async function measureRecordingCost(): Promise<string> {
  const stack = await startStack({ recording: true });
  const browser = await launchChromium({ fakeMedia: true });
  const rows: RecordingCost[] = [];
  try {
    const tenant = await createTenant(stack);
    const egress = new EgressClient(stack.media!.url, stack.media!.apiKey, stack.media!.apiSecret);
    const rooms = new RoomServiceClient(stack.media!.url, stack.media!.apiKey, stack.media!.apiSecret);
    const meeting = (await (await callApi(apiBase(stack), "POST", "/meeting", { key: tenant.apiKey, body: { title: "Recording cost" } })).json()) as {
      id: string;
      url: string;
    };
    await joinMeeting(browser, meeting.url, "Alice");
    await waitFor(async () => (await rooms.listParticipants(meeting.id)).some((person) => person.tracks.length >= 2), 30_000, "Alice publishes");
    const egressPid = () => stack.recording!.egress.pid()!;

    const idleBefore = sample(egressPid());
    await delay(5_000);
    const idle = sample(egressPid());
    rows.push({
      layout: "idle egress",
      concurrent: 0,
      accepted: 0,
      refusals: [],
      steadyCores: coresBetween(idleBefore, idle, 5_000),
      startCores: NaN,
      pssMiB: idle.pss,
      pssMiBPerRecording: NaN,
    });

    for (const layout of layouts) {
      for (const concurrency of concurrencies) {
        const before = sample(egressPid());
        const startedAt = Date.now();
        const ids: string[] = [];
        const refusals: string[] = [];
        await Promise.all(
          Array.from({ length: concurrency }, async (_, index) => {
            const file = path.join(stack.recording!.dir, `${layout}-${concurrency}-${index}.mp4`);
            const asked = Date.now();
            try {
              const info = await egress.startRoomCompositeEgress(
                meeting.id,
                new EncodedFileOutput({ fileType: EncodedFileType.MP4, filepath: file }),
                layout === "audio" ? { audioOnly: true } : { layout: "grid" },
              );
              ids.push(info.egressId);
            } catch (error) {
              // No egress had the CPU for it (egress's cpu_cost check): how long the refusal took, and what it said.
              refusals.push(`refused after ${((Date.now() - asked) / 1000).toFixed(1)} s: ${error instanceof Error ? error.message : String(error)}`);
            }
          }),
        );
        const active = async () => {
          const infos = await egress.listEgress({ roomName: meeting.id, active: true });
          return ids.every((id) => infos.some((info) => info.egressId === id && info.status === EgressStatus.EGRESS_ACTIVE));
        };
        await waitFor(active, 30_000, `${concurrency} ${layout} recordings active`);
        await delay(Math.max(0, START_WINDOW_MS - (Date.now() - startedAt)));
        const afterStart = sample(egressPid());
        const startCores = coresBetween(before, afterStart, Date.now() - startedAt);
        await delay(seconds * 1_000);
        const steady = sample(egressPid());
        const steadyCores = coresBetween(afterStart, steady, seconds * 1_000);
        await Promise.all(ids.map((id) => egress.stopEgress(id)));
        await waitFor(async () => (await egress.listEgress({ roomName: meeting.id, active: true })).length === 0, 60_000, "recordings ended");
        const perRecording = ids.length ? (steady.pss - idle.pss) / ids.length : 0;
        rows.push({
          layout,
          concurrent: concurrency,
          accepted: ids.length,
          refusals,
          steadyCores,
          startCores,
          pssMiB: steady.pss,
          pssMiBPerRecording: perRecording,
        });
        process.stderr.write(`${formatRecordingCostTable(seconds, rows.slice(-1)).split("\n")[3]!}\n`);
        await delay(3_000); // let the ended recordings' processes go
      }
    }
  } finally {
    await browser.close();
    await stack.stop();
  }
  return formatRecordingCostTable(seconds, rows);
}

// Run directly: print the table.
if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(await measureRecordingCost());
