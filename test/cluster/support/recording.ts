// Recording on the local cluster, as the cluster test watches it: LiveKit's Egress API (LiveKit
// runs on this machine's network, its key pair in the Secret svc-livekit), the recording's egress
// id in the cluster's database, ffprobe.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { EgressClient } from "livekit-server-sdk";
import pg from "pg";
import { untilRecorderActive } from "../../support/recorder-active.ts";
import { clusterDatabaseUrl, kubectl, namespace } from "./cluster.ts";

const run = promisify(execFile);
/** The media server as this machine reaches it (scripts/cluster/manifests/livekit-config.yaml). */
const mediaUrl = "http://127.0.0.1:7980";

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
