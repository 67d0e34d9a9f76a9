// How long a recording takes to start (issue #44, "Recording from the moment it is asked"): from
// the start call returning (POST /api/v1/meeting/:id/recordings, a `grid` recording) to the first
// recorded frame, which is when the recorder reports its run active (Egress's own
// EgressInfo.startedAt, set as its pipeline starts writing), and what the file misses: the time
// between the start call returning and the stop, less the file's duration. Its floor: Egress
// alone, asked directly with the same options, in the same run. One Chromium participant with a
// fake camera and microphone is in the room.
//
//   npm run bench -- --only=recording-start, or
//   eval "$(bash scripts/infra up)"; scripts/node test/bench/recording-start.ts
//   RECORDING_START_SAMPLES=3  RECORDING_START_SECONDS=10
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as delay } from "node:timers/promises";
import { EgressClient, EgressStatus, EncodedFileOutput, EncodedFileType, EncodingOptionsPreset, RoomServiceClient } from "livekit-server-sdk";
import { launchChromium } from "../support/chromium.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { apiBase, callApi, readResponse } from "../support/rest-client.ts";
import { startStack, type Stack } from "../support/stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";

const samples = Number(process.env.RECORDING_START_SAMPLES ?? 3);
const recordSeconds = Number(process.env.RECORDING_START_SECONDS ?? 10);

const nanosToMs = (nanos: bigint) => Number(nanos / 1_000_000n);

/** Waits for the run to be active; returns Egress's own start time (ms since the epoch). */
async function captureBegan(egress: EgressClient, egressId: string): Promise<number> {
  let startedAt = 0;
  await waitFor(
    async () => {
      const [info] = await egress.listEgress({ egressId });
      if (info?.status !== EgressStatus.EGRESS_ACTIVE) return false;
      startedAt = nanosToMs(info.startedAt);
      return true;
    },
    90_000,
    "the recorder reports its run active",
  );
  return startedAt;
}

interface Sample {
  /** Start call returned → capture began (Egress's own time). */
  gapMs: number;
  /** Time between the start call returning and the stop that the file does not have. */
  missingSeconds: number;
}

async function throughOurApi(stack: Stack, tenant: Tenant, egress: EgressClient, meetingId: string): Promise<Sample> {
  const api = (method: string, route: string, body?: unknown) => callApi(apiBase(stack), method, route, { key: tenant.apiKey, body }).then(readResponse);
  const started = await api("POST", `/meeting/${meetingId}/recordings`, { layout: "grid" });
  const returned = Date.now();
  if (started.status !== 201) throw new Error(`start: ${started.status} ${JSON.stringify(started.body)}`);
  const id = String(started.body.id);
  const egressId = (await stack.query<{ egress_id: string }>("SELECT egress_id FROM meeting.recordings WHERE id = $1", [id])).rows[0]!.egress_id;
  const began = await captureBegan(egress, egressId);
  await delay(Math.max(0, recordSeconds * 1_000 - (Date.now() - returned)));
  const stopAsked = Date.now();
  await api("POST", `/recordings/${id}/stop`);
  let duration = 0;
  await waitFor(
    async () => {
      const now = await api("GET", `/recordings/${id}`);
      duration = Number(now.body.durationSeconds ?? 0);
      if (now.body.status === "failed") throw new Error(`recording failed: ${String(now.body.errorCode)}`);
      return now.body.status === "ready";
    },
    120_000,
    "the recording is ready",
  );
  return { gapMs: began - returned, missingSeconds: (stopAsked - returned) / 1_000 - duration };
}

async function egressAlone(stack: Stack, egress: EgressClient, meetingId: string, index: number): Promise<Sample> {
  const output = new EncodedFileOutput({ fileType: EncodedFileType.MP4, filepath: path.join(stack.recording!.dir, `floor-${index}.mp4`) });
  const info = await egress.startRoomCompositeEgress(meetingId, output, { layout: "grid", encodingOptions: EncodingOptionsPreset.H264_720P_30 });
  const returned = Date.now();
  const began = await captureBegan(egress, info.egressId);
  await delay(Math.max(0, recordSeconds * 1_000 - (Date.now() - returned)));
  const stopAsked = Date.now();
  await egress.stopEgress(info.egressId);
  let duration = 0;
  await waitFor(
    async () => {
      const [now] = await egress.listEgress({ egressId: info.egressId });
      duration = nanosToMs(now?.fileResults[0]?.duration ?? 0n) / 1_000;
      return now?.status === EgressStatus.EGRESS_COMPLETE;
    },
    120_000,
    "Egress finished the file",
  );
  return { gapMs: began - returned, missingSeconds: (stopAsked - returned) / 1_000 - duration };
}

/** Alternating samples through our API and of Egress alone, on a stack of its own; returns the table (markdown). */
export async function measureRecordingStart(): Promise<string> {
  const stack = await startStack({ recording: true });
  const browser = await launchChromium({ fakeMedia: true });
  try {
    const tenant = await createTenant(stack);
    const egress = new EgressClient(stack.media!.url, stack.media!.apiKey, stack.media!.apiSecret);
    const rooms = new RoomServiceClient(stack.media!.url, stack.media!.apiKey, stack.media!.apiSecret);
    const created = await callApi(apiBase(stack), "POST", "/meeting", { key: tenant.apiKey, body: { title: "Recording start", recording: "manual" } });
    const meeting = (await created.json()) as { id: string; url: string };
    await joinMeeting(browser, meeting.url, "Alice");
    await waitFor(async () => (await rooms.listParticipants(meeting.id)).some((person) => person.tracks.length >= 2), 30_000, "Alice publishes");
    const ours: Sample[] = [];
    const floor: Sample[] = [];
    for (let index = 0; index < samples; index++) {
      ours.push(await throughOurApi(stack, tenant, egress, meeting.id));
      await delay(3_000); // let the ended run's processes go
      floor.push(await egressAlone(stack, egress, meeting.id, index));
      await delay(3_000);
      process.stderr.write(`recording start: ours ${ours.at(-1)!.gapMs} ms, Egress alone ${floor.at(-1)!.gapMs} ms\n`);
    }
    const list = (values: number[], digits = 0) => values.map((value) => value.toFixed(digits)).join(", ");
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const ourGaps = ours.map((sample) => sample.gapMs);
    return [
      `Recording start (grid, ${recordSeconds} s recordings, ${samples} samples each; goal ≤ 2,000 ms on an idle machine):`,
      "| | start call returned → first recorded frame (median) | samples ms | seconds the file misses (samples) |",
      "|---|---|---|---|",
      `| POST /api/v1/meeting/:id/recordings | ${median(ourGaps).toFixed(0)} ms${median(ourGaps) <= 2_000 ? " (goal met)" : " (goal NOT met)"} | ${list(ourGaps)} | ${list(
        ours.map((sample) => sample.missingSeconds),
        1,
      )} |`,
      `| floor: Egress's StartRoomCompositeEgress alone | ${median(floor.map((sample) => sample.gapMs)).toFixed(0)} ms | ${list(floor.map((sample) => sample.gapMs))} | ${list(
        floor.map((sample) => sample.missingSeconds),
        1,
      )} |`,
      "",
    ].join("\n");
  } finally {
    await browser.close();
    await stack.stop();
  }
}

// Run directly: print the table.
if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(await measureRecordingStart());
