// `npm run test:cluster`: the Helm chart on the real one-node Kubernetes cluster of
// `npm run cluster:up` (docs/kubernetes-local.md). In order: `helm package` and `helm push` to the
// cluster's local OCI registry, install from that oci:// reference with --wait, `helm test`,
// a meeting end to end through the gateway Service (two Chromium participants, a signed
// meeting.ended), a recording by the egress pod (downloaded and probed), a transcript made by
// the transcriber pod (its text and a signed transcript.ready), two replicas of every service (revocation, no duplicate deliveries), a rolling
// upgrade under load, pod loss, and the NetworkPolicies' ports. Figures go to stdout and to
// $SVC_CLUSTER_DIR/test-figures.json.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createPool } from "@svc/platform/db";
import { createTranscript } from "../../services/meeting/src/db/transcription-jobs.ts";
import { launchChromium } from "../support/chromium.ts";
import { inboundMedia, joinMeeting, remoteTiles, screenshotDir } from "../support/meeting-room-browser.ts";
import { holdStill } from "../support/hold-still.ts";
import { speak, wordErrorRate, words } from "../support/transcription.ts";
import { waitFor } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import {
  adminCli,
  api,
  clusterDatabaseUrl,
  clusterDir,
  createTenantInCluster,
  eventually,
  gatewayUrl,
  helm,
  kubectl,
  kubectlJson,
  kubectlStdin,
  namespace,
  nodeIp,
  podsOf,
  podUsage,
  publishChart,
  release,
  root,
  terminatingPods,
  valuesFile,
  type Pod,
} from "./support/cluster.ts";
import { probe, recorderActive } from "./support/recording.ts";

const execFileAsync = promisify(execFile);
const components = ["gateway", "identity", "meeting", "webhook"] as const;
/** What the transcriber pod hears: three of the worker's own test sentences (everyday words, which the model hears well from espeak-ng). */
const TRANSCRIPT_SENTENCES = (
  JSON.parse(readFileSync(path.join(root, "services/meeting/transcriber/tests/speech.json"), "utf8")) as { sentences: { text: string }[] }
).sentences
  .slice(0, 3)
  .map((sentence) => sentence.text);
const figures: Record<string, unknown> = {};
let tenant: Awaited<ReturnType<typeof createTenantInCluster>>;
let receiver: WebhookReceiver;
let browser: Browser;
/** The chart as pushed to the local OCI registry (the first step). */
let published: Awaited<ReturnType<typeof publishChart>> | undefined;

const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;

/** The memory (RSS of the Node process, PID 1 of the container) of every pod of the release, in MiB. */
async function memoryByPod(): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const component of components) {
    for (const pod of await podsOf(component)) {
      const status = await kubectl("-n", namespace, "exec", pod.metadata.name, "--", "cat", "/proc/1/status");
      result[pod.metadata.name] = Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
    }
  }
  return result;
}

/** CPU seconds used so far by the Node process of every pod (utime + stime of PID 1). */
async function cpuSecondsByPod(): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const component of components) {
    for (const pod of await podsOf(component)) {
      const stat = (await kubectl("-n", namespace, "exec", pod.metadata.name, "--", "cat", "/proc/1/stat")).split(") ")[1]!.split(" ");
      result[pod.metadata.name] = (Number(stat[11]) + Number(stat[12])) / 100;
    }
  }
  return result;
}

async function createAndEndMeeting(title: string): Promise<string> {
  const created = await api(gatewayUrl, tenant.apiKey, "POST", "/meeting", { title });
  expect(created.status, await created.clone().text()).toBe(200);
  const { id } = await json<{ id: string }>(created);
  const ended = await api(gatewayUrl, tenant.apiKey, "POST", `/meeting/${id}/end`);
  expect(ended.status).toBe(200);
  return id;
}

async function subscribe(route: string, events: string[] = ["meeting.ended"]) {
  const response = await api(gatewayUrl, tenant.apiKey, "POST", "/webhook", { url: `${receiver.baseUrl}${route}`, events });
  expect(response.status, await response.clone().text()).toBe(201);
  const { secret } = await json<{ secret: string }>(response);
  receiver.useSecret(route, secret);
}

/** meeting.ended deliveries at `route`, verified, by meeting id: the webhook-ids each came under. */
function endedDeliveries(route: string) {
  const byMeeting = new Map<string, string[]>();
  for (const request of receiver.on(route)) {
    expect(request.verificationError, "every delivery verifies (standardwebhooks)").toBeUndefined();
    if (request.payload?.type !== "meeting.ended") continue;
    const meetingId = String(request.payload.data.meetingId);
    byMeeting.set(meetingId, [...(byMeeting.get(meetingId) ?? []), request.id]);
  }
  return byMeeting;
}

beforeAll(async () => {
  // A clean release and database, so the run does not depend on what an earlier run left.
  await helm("uninstall", release, "-n", namespace, "--wait", "--timeout", "3m").catch(() => "");
  await kubectl("-n", namespace, "delete", "secret", "svc-test-api-key", "--ignore-not-found");
  const admin = new pg.Client({ connectionString: process.env.SVC_CLUSTER_ADMIN_DATABASE_URL ?? "postgres://svc:svc@127.0.0.1:5432/svc" });
  await admin.connect();
  await admin.query("DROP DATABASE IF EXISTS svc_cluster WITH (FORCE)");
  await admin.query("CREATE DATABASE svc_cluster");
  await admin.end();
  // The image of the rolling upgrade: a second tag, imported like the first.
  await execFileAsync("ctr", ["-n", "k8s.io", "images", "tag", "--force", "localhost/svc:local", "localhost/svc:upgrade"], {
    env: { ...process.env, CONTAINERD_ADDRESS: "/run/svc-cluster/containerd.sock" },
  });
  receiver = await startWebhookReceiver(nodeIp());
  browser = await launchChromium({ fakeMedia: true });
  mkdirSync(screenshotDir, { recursive: true });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  mkdirSync(clusterDir, { recursive: true });
  writeFileSync(path.join(clusterDir, "test-figures.json"), `${JSON.stringify(figures, null, 2)}\n`);
  process.stdout.write(`cluster test figures: ${JSON.stringify(figures, null, 2)}\n`);
});

describe("helm package and push to an OCI registry, helm install from it --wait, then helm test", () => {
  it("packages the chart and pushes it to the local OCI registry; helm shows it from the oci:// reference", async () => {
    const started = Date.now();
    published = await publishChart();
    figures.chartPackageAndPushSeconds = Math.round((Date.now() - started) / 1000);
    figures.chartPackageBytes = published.packageBytes;
    const shown = await helm("show", "chart", published.reference, "--version", published.version, "--plain-http");
    expect(shown).toMatch(/^name: svc$/m);
    expect(shown).toContain(`version: ${published.version}`);
  });

  it("installs from the oci:// reference with the local-cluster values: every Deployment has two ready replicas", async () => {
    expect(published, "the chart was pushed").toBeDefined();
    const started = Date.now();
    await helm(
      "install",
      release,
      published!.reference,
      "--version",
      published!.version,
      "--plain-http",
      "-n",
      namespace,
      "--create-namespace",
      "-f",
      valuesFile,
      "--wait",
      "--timeout",
      "10m",
    );
    figures.helmInstallSeconds = Math.round((Date.now() - started) / 1000);
    const [installed] = JSON.parse(await helm("list", "-n", namespace, "--filter", `^${release}$`, "-o", "json")) as { chart: string }[];
    expect(installed?.chart).toBe(`svc-${published!.version}`);
    for (const component of components) {
      const deployment = await kubectlJson<{ status: { readyReplicas?: number } }>("-n", namespace, "get", "deployment", `${release}-${component}`);
      expect(deployment.status.readyReplicas, component).toBe(2);
    }
    // The recorder (recording.enabled in the values) and the transcription worker (transcriber.enabled):
    // one pod each, started from their own images.
    for (const component of ["egress", "transcriber"]) {
      const deployment = await kubectlJson<{ status: { readyReplicas?: number } }>("-n", namespace, "get", "deployment", `${release}-${component}`);
      expect(deployment.status.readyReplicas, component).toBe(1);
    }
    // The gateway answers from this machine at its NodePort (kube-proxy may lag a moment behind readiness).
    await eventually(async () => expect((await fetch(`${gatewayUrl}/readyz`)).status).toBe(200));
    const [identity] = await podsOf("identity");
    tenant = await createTenantInCluster(identity!.metadata.name, "cluster-test");
    await kubectl("-n", namespace, "create", "secret", "generic", "svc-test-api-key", `--from-literal=api-key=${tenant.apiKey}`);
    figures.idleMemoryMiB = await memoryByPod();
  }, 900_000);

  it("helm test: the chart's own test pod finds every service SERVING and the gateway answering, with and without a key", async () => {
    const output = await helm("test", release, "-n", namespace, "--logs", "--timeout", "5m");
    for (const service of ["identity", "meeting", "webhook"]) expect(output).toMatch(new RegExp(`ok {3}${service} gRPC health .*SERVING`));
    expect(output).toMatch(/ok {3}gateway \/healthz/);
    expect(output).toMatch(/ok {3}gateway \/readyz/);
    expect(output).toMatch(/ok {3}POST \/api\/v1\/auth without a credential is refused/);
    expect(output).toMatch(/ok {3}POST \/api\/v1\/auth with the operator's API key .*organization/);
    expect(output).toMatch(/Phase:\s+Succeeded/);
  }, 600_000);
});

describe("a meeting end to end through the gateway Service", () => {
  it("two Chromium participants join, see each other's video, leave; the receiver gets meeting.ended, signed", async () => {
    await subscribe("/e2e", ["meeting.started", "meeting.ended"]);
    const created = await api(gatewayUrl, tenant.apiKey, "POST", "/meeting", { title: "Cluster meeting" });
    expect(created.status).toBe(200);
    const meeting = await json<{ id: string; url: string }>(created);
    expect(meeting.url.startsWith(`${gatewayUrl}/meeting/`)).toBe(true);
    const alice = await joinMeeting(browser, meeting.url, "Alice");
    const bob = await joinMeeting(browser, meeting.url, "Bob");
    const pages: Page[] = [alice, bob];
    await waitFor(
      async () => {
        for (const page of pages) if ((await inboundMedia(page)).videoFramesByTrack.filter((frames) => frames > 0).length < 1) return false;
        return true;
      },
      45_000,
      "each page decodes the other's video",
    );
    const before = await Promise.all(pages.map(inboundMedia));
    await holdStill(2_000, "a window in which video must keep flowing both ways");
    const after = await Promise.all(pages.map(inboundMedia));
    after.forEach((media, index) => {
      const sum = (frames: number[]) => frames.reduce((total, value) => total + value, 0);
      expect(sum(media.videoFramesByTrack), `page ${index} keeps decoding video`).toBeGreaterThan(sum(before[index]!.videoFramesByTrack));
    });
    for (const page of pages) await expect.poll(() => remoteTiles(page).count()).toBe(1);
    await alice.screenshot({ path: path.join(screenshotDir, "cluster-two-person-room.png") });
    for (const page of pages) await page.getByRole("button", { name: "Leave" }).click();
    await waitFor(() => (endedDeliveries("/e2e").get(meeting.id)?.length ?? 0) >= 1, 90_000, "meeting.ended at the receiver");
    const ended = receiver.on("/e2e").find((request) => request.payload?.type === "meeting.ended" && request.payload.data.meetingId === meeting.id)!;
    expect(ended.verificationError).toBeUndefined();
    expect(ended.headers["webhook-signature"]).toMatch(/^v1,/);
    expect(ended.payload!.data.reason).toBe("empty");
  }, 300_000);
});

describe("a recording by the egress pod", () => {
  it("an audio recording started and stopped through the API is ready (signed recording.ready), and its access link downloads an MP4 as long as it ran", async () => {
    const started = Date.now();
    await subscribe("/recording", ["recording.ready", "recording.failed"]);
    const created = await api(gatewayUrl, tenant.apiKey, "POST", "/meeting", { title: "Cluster recording", recording: "manual" });
    expect(created.status, await created.clone().text()).toBe(200);
    const meeting = await json<{ id: string; url: string }>(created);
    const page = await joinMeeting(browser, meeting.url, "Rita");
    const before = await podUsage("egress");
    const startRequested = Date.now();
    const start = await api(gatewayUrl, tenant.apiKey, "POST", `/meeting/${meeting.id}/recordings`, { layout: "audio" });
    expect(start.status, await start.clone().text()).toBe(201);
    const recording = await json<{ id: string; status: string; layout: string }>(start);
    expect(recording).toMatchObject({ status: "recording", layout: "audio" });
    const activeAt = await recorderActive(recording.id);
    await holdStill(8_000, "eight seconds of recording, which ffprobe then measures");
    const during = await podUsage("egress");
    const duringAt = Date.now();
    const stop = await api(gatewayUrl, tenant.apiKey, "POST", `/recordings/${recording.id}/stop`);
    expect(stop.status, await stop.clone().text()).toBe(200);
    const stoppedAt = Date.now();
    const recordedSeconds = (stoppedAt - activeAt) / 1000;

    await waitFor(
      () => receiver.on("/recording").some((request) => request.payload?.data.recordingId === recording.id),
      120_000,
      "recording.ready (or recording.failed) at the receiver",
    );
    const event = receiver.on("/recording").find((request) => request.payload?.data.recordingId === recording.id)!;
    expect(event.verificationError).toBeUndefined();
    expect(event.payload!.type, JSON.stringify(event.payload!.data)).toBe("recording.ready");
    const readyAt = event.receivedAt;
    const now = await json<{ status: string; durationSeconds: number; sizeBytes: number }>(
      await api(gatewayUrl, tenant.apiKey, "GET", `/recordings/${recording.id}`),
    );
    expect(now.status).toBe("ready");

    // The access link needs no key: a scheduler hands it to a person.
    const link = await json<{ downloadLink: string }>(await api(gatewayUrl, tenant.apiKey, "GET", `/recordings/${recording.id}/access-link`));
    const download = await fetch(link.downloadLink);
    expect(download.status).toBe(200);
    const folder = mkdtempSync(path.join(os.tmpdir(), "cluster-recording-"));
    try {
      const file = path.join(folder, "recording.mp4");
      writeFileSync(file, Buffer.from(await download.arrayBuffer()));
      const probed = await probe(file);
      expect(probed.format.format_name).toContain("mp4");
      expect(probed.streams.map((stream) => `${stream.codec_type}:${stream.codec_name}`)).toEqual(["audio:aac"]);
      expect(Number(probed.format.size)).toBe(now.sizeBytes);
      expect(Math.abs(Number(probed.format.duration) - recordedSeconds), `${probed.format.duration} s in the file, ${recordedSeconds} s recorded`).toBeLessThan(
        3,
      );
      figures.recording = {
        layout: "audio",
        startCallToActiveSeconds: +((activeAt - startRequested) / 1000).toFixed(1),
        recordedSeconds: +recordedSeconds.toFixed(1),
        fileSeconds: +Number(probed.format.duration).toFixed(1),
        sizeBytes: now.sizeBytes,
        stopToReadyWebhookSeconds: +((readyAt - stoppedAt) / 1000).toFixed(1),
        // The egress container while it recorded (CPU from the start request to 8 s into the recording).
        egressCpuCores: +((during.cpuSeconds - before.cpuSeconds) / ((duringAt - startRequested) / 1000)).toFixed(2),
        egressIdleMemoryMiB: before.memoryMiB,
        egressMemoryMiBWhileRecording: during.memoryMiB,
        egressPeakMemoryMiB: during.peakMemoryMiB,
        testSeconds: Math.round((Date.now() - started) / 1000),
      };
    } finally {
      rmSync(folder, { recursive: true, force: true });
      await page.close();
    }
  }, 300_000);
});

describe("a transcript made by the transcriber pod", () => {
  it("a speaker's speech in the recordings volume, queued as the meeting service queues a track, becomes a ready transcript (signed transcript.ready) whose text is that speech", async () => {
    const started = Date.now();
    await subscribe("/transcripts", ["transcript.ready", "transcript.failed"]);
    const created = await api(gatewayUrl, tenant.apiKey, "POST", "/meeting", { title: "Cluster transcript", recording: "manual", transcription: "on" });
    expect(created.status, await created.clone().text()).toBe(200);
    const meeting = await json<{ id: string }>(created);
    // A speaker's track where the recorder writes tracks: the recordings volume (a folder of the node,
    // cluster:up), which the transcriber pod mounts read-only; readable by the pods' user.
    const objectKey = `${randomUUID()}.wav`;
    const file = path.join(clusterDir, "recordings", objectKey);
    speak(file, `${TRANSCRIPT_SENTENCES.map((sentence) => `<break time="1s"/>${sentence}`).join("")}<break time="1s"/>`);
    chmodSync(file, 0o644);
    const before = await podUsage("transcriber");
    // The transcript and job the meeting service inserts when a recording's speaker tracks are
    // written (speaker-tracks.ts: insertTranscript, which this wraps); the pod leases the job from
    // the release's database.
    const pool = createPool({ databaseUrl: clusterDatabaseUrl, schema: "meeting", logger: createLogger("cluster-test", "silent"), max: 1 });
    const queuedAt = Date.now();
    let transcriptId: string;
    try {
      transcriptId = await createTranscript(pool, {
        meetingId: meeting.id,
        orgId: tenant.orgId,
        sources: [{ storage: "filesystem", objectKey, offsetMs: 0, speaker: { displayName: "Tess" } }],
      });
    } finally {
      await pool.end();
    }
    try {
      await waitFor(
        () => receiver.on("/transcripts").some((request) => request.payload?.data.transcriptId === transcriptId),
        240_000,
        "transcript.ready (or transcript.failed) at the receiver",
      );
      const readyAt = Date.now();
      const event = receiver.on("/transcripts").find((request) => request.payload?.data.transcriptId === transcriptId)!;
      expect(event.verificationError).toBeUndefined();
      expect(event.payload!.type, JSON.stringify(event.payload!.data)).toBe("transcript.ready");
      const transcript = await json<{
        status: string;
        durationSeconds: number;
        speakers: { name: string }[];
        segments: { speaker: string; start: number; text: string }[];
      }>(await api(gatewayUrl, tenant.apiKey, "GET", `/transcripts/${transcriptId}`));
      expect(transcript.status).toBe("ready");
      expect(transcript.speakers.map((speaker) => speaker.name)).toEqual(["Tess"]);
      expect(transcript.segments.every((segment) => segment.speaker === "Tess")).toBe(true);
      const starts = transcript.segments.map((segment) => segment.start);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
      const errorRate = wordErrorRate(words(TRANSCRIPT_SENTENCES.join(" ")), words(transcript.segments.map((segment) => segment.text).join(" ")));
      expect(errorRate, transcript.segments.map((segment) => segment.text).join(" | ")).toBeLessThanOrEqual(0.15);
      const after = await podUsage("transcriber");
      figures.transcription = {
        speechSeconds: transcript.durationSeconds,
        queuedToReadySeconds: +((readyAt - queuedAt) / 1000).toFixed(1),
        wordErrorRate: +errorRate.toFixed(3),
        transcriberCpuSeconds: +(after.cpuSeconds - before.cpuSeconds).toFixed(1),
        transcriberIdleMemoryMiB: before.memoryMiB,
        transcriberPeakMemoryMiB: after.peakMemoryMiB,
        testSeconds: Math.round((Date.now() - started) / 1000),
      };
    } finally {
      rmSync(file, { force: true });
    }
  }, 300_000);
});

describe("two replicas of every service", () => {
  it("a key revoked through one identity replica is refused at once through every gateway replica", async () => {
    const identities = await podsOf("identity");
    const gateways = await podsOf("gateway");
    expect(identities).toHaveLength(2);
    expect(gateways).toHaveLength(2);
    const key = await createTenantInCluster(identities[0]!.metadata.name, "revocation");
    const gatewayPods = gateways.map((pod) => `http://${pod.status.podIP}:8080`);
    // Verified (and cached) through both gateway replicas first.
    for (const base of gatewayPods) expect((await api(base, key.apiKey, "POST", "/auth")).status).toBe(200);
    await adminCli(identities[1]!.metadata.name, "keys", "revoke", "--key-id", key.keyId);
    for (const base of gatewayPods) expect((await api(base, key.apiKey, "POST", "/auth")).status, base).toBe(401);
  }, 120_000);

  it("meeting.ended deliveries are not duplicated across the webhook replicas", async () => {
    expect(await podsOf("webhook")).toHaveLength(2);
    await subscribe("/replicas");
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) ids.push(await createAndEndMeeting(`replicas ${i}`));
    await waitFor(() => ids.every((id) => endedDeliveries("/replicas").has(id)), 120_000, "every meeting.ended delivered");
    await holdStill(5_000, "time for a duplicate delivery to arrive, if one were sent");
    const deliveries = endedDeliveries("/replicas");
    const duplicates = ids.filter((id) => deliveries.get(id)!.length !== 1);
    figures.replicas = { events: ids.length, delivered: ids.filter((id) => deliveries.has(id)).length, duplicates: duplicates.length };
    expect(duplicates).toEqual([]);
  }, 300_000);
});

describe("rolling upgrade under load", () => {
  it("helm upgrade to a new image tag while POST /auth and meeting creations run: zero failed requests; each migration Job runs once", async () => {
    const memoryBefore = await memoryByPod();
    const cpuBefore = await cpuSecondsByPod();
    let stop = false;
    let sent = 0;
    let answered = 0;
    const failures: string[] = [];
    const worker = async (index: number) => {
      for (let i = 0; !stop; i++) {
        sent++;
        try {
          const response =
            (i + index) % 4 === 0
              ? await api(gatewayUrl, tenant.apiKey, "POST", "/meeting", { title: `load ${index}-${i}` })
              : await api(gatewayUrl, tenant.apiKey, "POST", "/auth");
          if (response.status !== 200) failures.push(`${response.status} ${(await response.text()).slice(0, 200)}`);
          else await response.arrayBuffer();
          answered++;
        } catch (error) {
          failures.push(String((error as Error).cause ?? error));
        }
      }
    };
    const upgradeStarted = new Date();
    const load = Array.from({ length: 8 }, (_, index) => worker(index));
    await waitFor(() => answered >= 40, 60_000, "the load under way before the upgrade");
    const started = Date.now();
    // From the same oci:// reference, as an operator upgrades a published chart.
    await helm(
      "upgrade",
      release,
      published!.reference,
      "--version",
      published!.version,
      "--plain-http",
      "-n",
      namespace,
      "-f",
      valuesFile,
      "--set",
      "image.tag=upgrade",
      "--wait",
      "--timeout",
      "10m",
    );
    const rolloutSeconds = Math.round((Date.now() - started) / 1000);
    // Pods of the old ReplicaSets are still draining when --wait returns: keep the load on until they are gone.
    await waitFor(async () => (await terminatingPods()).length === 0, 120_000, "the old pods gone after the upgrade");
    const cpuAfter = await cpuSecondsByPod();
    const memoryUnderLoad = await memoryByPod();
    stop = true;
    await Promise.all(load);
    for (const component of components) {
      for (const pod of await podsOf(component)) {
        const spec = await kubectlJson<{ spec: { containers: { image: string }[] } }>("-n", namespace, "get", "pod", pod.metadata.name);
        expect(spec.spec.containers[0]!.image, pod.metadata.name).toBe("localhost/svc:upgrade");
      }
    }
    // Each migration Job of this upgrade: one Job object, one pod created, completed.
    const events = await kubectlJson<{
      items: { involvedObject: { kind: string; name: string; uid: string }; reason: string; count?: number; firstTimestamp?: string; eventTime?: string }[];
    }>("-n", namespace, "get", "events");
    const migrationRuns: Record<string, number> = {};
    for (const service of ["identity", "meeting", "webhook"]) {
      const jobEvents = events.items.filter(
        (event) =>
          event.involvedObject.kind === "Job" &&
          event.involvedObject.name === `${release}-${service}-migrations` &&
          new Date(event.firstTimestamp ?? event.eventTime ?? 0) >= new Date(upgradeStarted.getTime() - 1000),
      );
      const jobs = new Set(jobEvents.map((event) => event.involvedObject.uid));
      const podsCreated = jobEvents.filter((event) => event.reason === "SuccessfulCreate").reduce((total, event) => total + (event.count ?? 1), 0);
      migrationRuns[service] = podsCreated;
      expect(jobs.size, `${service}: migration Jobs in this upgrade`).toBe(1);
      expect(podsCreated, `${service}: migration pods in this upgrade`).toBe(1);
      expect(
        jobEvents.some((event) => event.reason === "Completed"),
        `${service}: migration Job completed`,
      ).toBe(true);
    }
    const seconds = (Date.now() - started) / 1000 + 3;
    figures.rollingUpgrade = {
      requestsSent: sent,
      failed: failures.length,
      failures: failures.slice(0, 10),
      rolloutSeconds,
      requestsPerSecond: Math.round(sent / seconds),
      migrationPodsPerService: migrationRuns,
    };
    figures.memoryUnderLoadMiB = memoryUnderLoad;
    figures.memoryBeforeLoadMiB = memoryBefore;
    figures.cpuSecondsDuringUpgrade = Object.fromEntries(Object.entries(cpuAfter).map(([pod, value]) => [pod, +(value - (cpuBefore[pod] ?? 0)).toFixed(1)]));
    expect(sent).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  }, 900_000);
});

describe("pod loss", () => {
  it("a webhook replica force-deleted while 200 deliveries are in flight: every event delivered, each under one webhook-id", async () => {
    await subscribe("/webhook-loss");
    // A slow receiver keeps the deliveries in flight.
    receiver.answer("/webhook-loss", () => ({ status: 204, delayMs: 1_500 }));
    // 200 meetings ended, 20 at a time (a steady client, not a burst that only measures the API's queueing).
    const ids: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      ids.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => createAndEndMeeting(`webhook loss ${batch * 20 + i}`)))));
    }
    await waitFor(() => receiver.on("/webhook-loss").length >= 20, 60_000, "deliveries under way");
    const [victim] = await podsOf("webhook");
    await kubectl("-n", namespace, "delete", "pod", victim!.metadata.name, "--force", "--grace-period=0");
    await waitFor(() => ids.every((id) => endedDeliveries("/webhook-loss").has(id)), 240_000, "every meeting.ended delivered after the loss");
    await holdStill(5_000, "time for a duplicate delivery to arrive, if one were sent");
    const deliveries = endedDeliveries("/webhook-loss");
    const idsPerEvent = ids.map((id) => new Set(deliveries.get(id)).size);
    const requests = ids.reduce((total, id) => total + deliveries.get(id)!.length, 0);
    figures.webhookPodLoss = { events: ids.length, delivered: ids.filter((id) => deliveries.has(id)).length, requests, redelivered: requests - ids.length };
    expect(
      idsPerEvent.every((count) => count === 1),
      "each event under one webhook-id",
    ).toBe(true);
  }, 600_000);

  it("a meeting replica force-deleted while its outbox drains: every meeting.ended delivered, each under one webhook-id", async () => {
    await subscribe("/meeting-loss");
    // Settled from the start: a call that fails while the pod is being deleted is an expected
    // outcome here, not an unhandled rejection.
    let ended = 0;
    const settled = Promise.allSettled(Array.from({ length: 200 }, (_, i) => createAndEndMeeting(`meeting loss ${i}`).then((id) => (ended++, id))));
    await waitFor(() => ended >= 10, 60_000, "meetings ending before the pod is deleted");
    const [victim] = await podsOf("meeting");
    await kubectl("-n", namespace, "delete", "pod", victim!.metadata.name, "--force", "--grace-period=0");
    // Requests the deleted pod held fail; the client retries them as any API client would.
    const results = await settled;
    const ids = results.filter((result) => result.status === "fulfilled").map((result) => (result as PromiseFulfilledResult<string>).value);
    expect(ids.length).toBeGreaterThan(150);
    await waitFor(() => ids.every((id) => endedDeliveries("/meeting-loss").has(id)), 240_000, "every meeting.ended delivered after the loss");
    await holdStill(5_000, "time for a duplicate delivery to arrive, if one were sent");
    const deliveries = endedDeliveries("/meeting-loss");
    const requests = ids.reduce((total, id) => total + deliveries.get(id)!.length, 0);
    figures.meetingPodLoss = {
      meetingsEnded: ids.length,
      apiCallsFailedAtTheKill: results.length - ids.length,
      delivered: ids.filter((id) => deliveries.has(id)).length,
      requests,
      redelivered: requests - ids.length,
    };
    expect(
      ids.every((id) => new Set(deliveries.get(id)).size === 1),
      "each event under one webhook-id",
    ).toBe(true);
  }, 600_000);
});

describe("NetworkPolicies", () => {
  it("are applied as rendered, and every port a policy admits is a port the selected process listens on", async () => {
    const rendered = (await helm("get", "manifest", release, "-n", namespace)).match(/^kind: NetworkPolicy$/gm)?.length ?? 0;
    const policies = await kubectlJson<{
      items: {
        metadata: { name: string };
        spec: {
          podSelector: { matchLabels: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
          ingress?: { ports?: { port: string | number }[] }[];
        };
      }[];
    }>("-n", namespace, "get", "networkpolicy");
    expect(policies.items).toHaveLength(rendered);
    expect(rendered).toBeGreaterThanOrEqual(5);
    const checked: string[] = [];
    for (const policy of policies.items) {
      // The policy's whole selector, as kubectl writes one: its labels and its expressions (svc-metrics
      // selects the components that serve metrics by `component in (...)`).
      const expression = ({ key, operator, values = [] }: { key: string; operator: string; values?: string[] }) =>
        ({ In: `${key} in (${values.join(",")})`, NotIn: `${key} notin (${values.join(",")})`, Exists: key, DoesNotExist: `!${key}` })[operator];
      const selector = [
        ...Object.entries(policy.spec.podSelector.matchLabels).map(([key, value]) => `${key}=${value}`),
        ...(policy.spec.podSelector.matchExpressions ?? []).map(expression),
      ].join(",");
      const pods = (await kubectlJson<{ items: Pod[] }>("-n", namespace, "get", "pods", "-l", selector)).items.filter(
        (pod) => pod.status.phase === "Running" && !pod.metadata.deletionTimestamp,
      );
      expect(pods.length, policy.metadata.name).toBeGreaterThan(0);
      for (const pod of pods) {
        const tables = await kubectl("-n", namespace, "exec", pod.metadata.name, "--", "sh", "-c", "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; true");
        // State 0A: LISTEN; the local port is the hex after the address's colon.
        const listening = new Set(
          tables
            .split("\n")
            .map((line) => line.trim().split(/\s+/))
            .filter((fields) => fields[3] === "0A")
            .map((fields) => parseInt(fields[1]!.split(":").at(-1)!, 16)),
        );
        for (const rule of policy.spec.ingress ?? []) {
          for (const { port } of rule.ports ?? []) {
            const number =
              typeof port === "number"
                ? port
                : pod.spec.containers.flatMap((container) => container.ports ?? []).find((candidate) => candidate.name === port)?.containerPort;
            expect(number, `${policy.metadata.name}: port ${port} is a named port of ${pod.metadata.name}`).toBeDefined();
            expect(listening.has(number!), `${policy.metadata.name}: ${pod.metadata.name} listens on ${port} (${number})`).toBe(true);
            checked.push(`${policy.metadata.name}:${port}=${number}`);
          }
        }
      }
    }
    figures.networkPolicyPortsChecked = [...new Set(checked)].sort();
  }, 300_000);
});

describe("every optional feature, checked by the API server", () => {
  it("with the Gateway API and Prometheus Operator CRDs installed, the chart from the registry with ci/all-features-values.yaml passes a strict server-side dry run", async () => {
    expect(published, "the chart was pushed").toBeDefined();
    // The CRDs scripts/check-chart validates against offline (their newest versions), applied for real.
    const { stdout } = await execFileAsync("bash", [path.join(root, "scripts/node"), path.join(root, "scripts/validate-crd-objects.ts"), "--crd-files"]);
    const crds = stdout.trim().split("\n");
    for (const crd of crds) await kubectl("apply", "--server-side", "--force-conflicts", "-f", crd);
    for (const crd of crds) await kubectl("wait", "--for=condition=Established", "-f", crd, "--timeout=60s");
    // A namespace of its own: the release's objects above would be patched, not created.
    const dryRunNamespace = "svc-all-features";
    await kubectl("create", "namespace", dryRunNamespace, "--dry-run=client", "-o", "yaml").then((yaml) => kubectlStdin(yaml, "apply", "-f", "-"));
    try {
      const rendered = await helm(
        "template",
        release,
        published!.reference,
        "--version",
        published!.version,
        "--plain-http",
        "-n",
        dryRunNamespace,
        "--kube-version",
        "1.34.4",
        "-f",
        path.join(root, "deploy/helm/svc/ci/all-features-values.yaml"),
      );
      // Strict field validation: an unknown field in any object, custom resources included, is an error.
      const applied = await kubectlStdin(rendered, "-n", dryRunNamespace, "apply", "--dry-run=server", "--validate=strict", "-f", "-");
      for (const kind of [
        "httproute.gateway.networking.k8s.io",
        "prometheusrule.monitoring.coreos.com",
        "servicemonitor.monitoring.coreos.com",
        "podmonitor.monitoring.coreos.com",
      ]) {
        expect(applied, kind).toMatch(new RegExp(`^${kind.replaceAll(".", "\\.")}/\\S+ created \\(server dry run\\)$`, "m"));
      }
      const objects = rendered.match(/^kind: /gm)!.length;
      expect(applied.match(/ created \(server dry run\)$/gm)?.length, "every rendered object accepted").toBe(objects);
      figures.allFeaturesObjectsAccepted = objects;
    } finally {
      await kubectl("delete", "namespace", dryRunNamespace, "--wait=false");
    }
  }, 300_000);
});
