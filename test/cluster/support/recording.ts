// Recording on the local cluster, as the cluster test watches it: LiveKit's Egress API (LiveKit
// runs on this machine's network, its key pair in the Secret svc-livekit), the recording's egress
// id in the cluster's database, the egress pod's CPU and memory from its cgroup, ffprobe.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { EgressClient } from "livekit-server-sdk";
import pg from "pg";
import { untilRecorderActive } from "../../support/recorder-active.ts";
import { kubectl, namespace, podsOf } from "./cluster.ts";

const run = promisify(execFile);
/** The media server as this machine reaches it (scripts/cluster/manifests/livekit-config.yaml). */
const mediaUrl = "http://127.0.0.1:7980";
/** The release's database on the host's Postgres (cluster:up names it svc_cluster). */
const clusterDatabaseUrl = process.env.SVC_CLUSTER_DATABASE_URL ?? "postgres://svc:svc@127.0.0.1:5432/svc_cluster";

async function secretField(secret: string, key: string): Promise<string> {
  return Buffer.from(await kubectl("-n", namespace, "get", "secret", secret, "-o", `jsonpath={.data.${key}}`), "base64").toString();
}

async function egressClient(): Promise<EgressClient> {
  return new EgressClient(mediaUrl, await secretField("svc-livekit", "api-key"), await secretField("svc-livekit", "api-secret"));
}

/** Waits until the recording's recorder in the egress pod records (LiveKit's EGRESS_ACTIVE); returns when that was seen. */
export async function recorderActive(recordingId: string): Promise<number> {
  const db = new pg.Client({ connectionString: clusterDatabaseUrl });
  await db.connect();
  try {
    return await untilRecorderActive(
      await egressClient(),
      async () =>
        (await db.query<{ egress_id: string | null }>("SELECT egress_id FROM meeting.recordings WHERE id = $1", [recordingId])).rows[0]?.egress_id ?? undefined,
      "the recorder in the egress pod records",
    );
  } finally {
    await db.end();
  }
}

export interface PodUsage {
  pod: string;
  /** CPU seconds the pod's container has used so far (every process in it: egress, its handler, Chromium, Xvfb, PulseAudio). */
  cpuSeconds: number;
  /** Its memory now and its peak so far, in MiB (the cgroup's usage, page cache included). */
  memoryMiB: number;
  peakMemoryMiB: number;
}

/** The egress pod's container totals, read from its cgroup (v1 here; v2 names as a fallback). */
export async function egressPodUsage(): Promise<PodUsage> {
  const [pod] = await podsOf("egress");
  if (!pod) throw new Error("no running egress pod");
  const read = (script: string) => kubectl("-n", namespace, "exec", pod.metadata.name, "--", "sh", "-c", script);
  const v1 = await read(
    "cat /sys/fs/cgroup/cpuacct/cpuacct.usage /sys/fs/cgroup/memory/memory.usage_in_bytes /sys/fs/cgroup/memory/memory.max_usage_in_bytes 2>/dev/null || true",
  );
  const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
  const numbers = v1.trim().split("\n").filter(Boolean).map(Number);
  if (numbers.length === 3) return { pod: pod.metadata.name, cpuSeconds: numbers[0]! / 1e9, memoryMiB: mib(numbers[1]!), peakMemoryMiB: mib(numbers[2]!) };
  const v2 = await read("cat /sys/fs/cgroup/cpu.stat /sys/fs/cgroup/memory.current /sys/fs/cgroup/memory.peak");
  const lines = v2.trim().split("\n");
  const usec = Number(/usage_usec (\d+)/.exec(v2)![1]);
  return { pod: pod.metadata.name, cpuSeconds: usec / 1e6, memoryMiB: mib(Number(lines.at(-2))), peakMemoryMiB: mib(Number(lines.at(-1))) };
}

export interface Probe {
  streams: { codec_type: string; codec_name: string }[];
  format: { format_name: string; duration: string; size: string };
}

export async function probe(file: string): Promise<Probe> {
  const { stdout } = await run("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "stream=codec_type,codec_name:format=format_name,duration,size",
    "-of",
    "json",
    file,
  ]);
  return JSON.parse(stdout) as Probe;
}
