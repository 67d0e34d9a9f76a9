// The local Kubernetes cluster of `npm run cluster:up`, as the cluster tests drive it: kubectl and
// Helm (the binaries cluster:up built), the release under test, the admin CLI run in an identity pod.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
export const root = path.resolve(import.meta.dirname, "../../..");
const cache = process.env.SVC_CACHE ?? path.join(os.homedir(), ".cache/svc");
export const clusterDir = process.env.SVC_CLUSTER_DIR ?? "/var/lib/svc-cluster";
const kubeconfig = process.env.KUBECONFIG ?? path.join(clusterDir, "pki/admin.kubeconfig");
const kubectlBinary = path.join(cache, `kubernetes-${process.env.SVC_K8S_VERSION ?? "v1.34.4"}/bin/kubectl`);

export const namespace = "svc";
export const release = "svc";
export const chart = path.join(root, "deploy/helm/svc");
export const valuesFile = path.join(chart, "ci/local-cluster-values.yaml");
/** The gateway's NodePort, answered on this machine's loopback too (cluster:up, values file). */
export const gatewayUrl = "http://127.0.0.1:30080";
/** The release's database on the host's Postgres (cluster:up names it svc_cluster). */
export const clusterDatabaseUrl = process.env.SVC_CLUSTER_DATABASE_URL ?? "postgres://svc:svc@127.0.0.1:5432/svc_cluster";
/** The node's own address: where pods reach this machine (cluster:up wrote it down). */
export const nodeIp = () => readFileSync(path.join(clusterDir, "node-ip"), "utf8").trim();

const env = () => ({ ...process.env, KUBECONFIG: kubeconfig });

export async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(kubectlBinary, args, { env: env(), maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** kubectl with `input` on its standard input (for `-f -`). */
export function kubectlStdin(input: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(kubectlBinary, args, { env: env(), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`kubectl ${args.join(" ")}: ${stderr || error.message}`)) : resolve(stdout),
    );
    child.stdin!.end(input);
  });
}

export async function kubectlJson<T>(...args: string[]): Promise<T> {
  return JSON.parse(await kubectl(...args, "-o", "json")) as T;
}

export async function helm(...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync("bash", [path.join(root, "scripts/helm"), ...args], { env: env(), maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/**
 * The chart as users get it: `helm package` of deploy/helm/svc, pushed (`helm push`) to the OCI
 * registry cluster:up runs on this machine (plain HTTP, loopback). Returns the oci:// reference
 * and version to install from.
 */
export async function publishChart(): Promise<{ reference: string; version: string; packageBytes: number }> {
  const registry = readFileSync(path.join(clusterDir, "registry"), "utf8").trim();
  const destination = mkdtempSync(path.join(os.tmpdir(), "svc-chart-"));
  try {
    const packaged = await helm("package", chart, "--destination", destination);
    const archive = /saved it to: (\S+\.tgz)/.exec(packaged)?.[1];
    if (!archive) throw new Error(`helm package said: ${packaged}`);
    const pushed = await helmWithStderr("push", archive, `oci://${registry}/charts`, "--plain-http");
    const digest = /Digest: (sha256:[0-9a-f]{64})/.exec(pushed)?.[1];
    if (!digest) throw new Error(`helm push said: ${pushed}`);
    const version = /-(\d+\.\d+\.\d+[^/]*)\.tgz$/.exec(archive)![1]!;
    return { reference: `oci://${registry}/charts/svc`, version, packageBytes: statSync(archive).size };
  } finally {
    rmSync(destination, { recursive: true, force: true });
  }
}

/** Helm's stdout and stderr together (`helm push` reports the pushed reference and digest on stderr). */
async function helmWithStderr(...args: string[]): Promise<string> {
  const { stdout, stderr } = await execFileAsync("bash", [path.join(root, "scripts/helm"), ...args], { env: env(), maxBuffer: 64 * 1024 * 1024 });
  return `${stdout}${stderr}`;
}

export interface Pod {
  metadata: { name: string; labels: Record<string, string>; deletionTimestamp?: string };
  spec: { containers: { name: string; ports?: { name?: string; containerPort: number }[] }[] };
  status: { podIP?: string; phase: string; containerStatuses?: { ready: boolean }[] };
}

/** The running pods of one component of the release. */
export async function podsOf(component: string): Promise<Pod[]> {
  const list = await kubectlJson<{ items: Pod[] }>(
    "-n",
    namespace,
    "get",
    "pods",
    "-l",
    `app.kubernetes.io/instance=${release},app.kubernetes.io/component=${component}`,
  );
  return list.items.filter((pod) => pod.status.phase === "Running" && !pod.metadata.deletionTimestamp);
}

/** The release's pods that are being deleted and still exist (draining their requests). */
export async function terminatingPods(): Promise<Pod[]> {
  const list = await kubectlJson<{ items: Pod[] }>("-n", namespace, "get", "pods", "-l", `app.kubernetes.io/instance=${release}`);
  return list.items.filter((pod) => pod.metadata.deletionTimestamp);
}

/** A shell script run in a pod of the release's namespace (its arguments after `$0`); its stdout. */
export function shellInPod(pod: string, script: string, ...args: string[]): Promise<string> {
  return kubectl("-n", namespace, "exec", pod, "--", "sh", "-c", script, ...args);
}

/** The admin CLI inside an identity pod, on loopback with the pod's own admin token (as NOTES shows). */
export async function adminCli(pod: string, ...args: string[]): Promise<Record<string, string>> {
  const out = await shellInPod(
    pod,
    'SVC_IDENTITY_ADMIN_URL="http://127.0.0.1:$ADMIN_PORT" SVC_ADMIN_TOKEN="$ADMIN_TOKEN" exec node services/identity/dist/cli/main.js "$@"',
    "cli",
    ...args,
    "--json",
  );
  return JSON.parse(out) as Record<string, string>;
}

/** An organization, its admin and an API key, made with the admin CLI in the given identity pod. */
export async function createTenantInCluster(identityPod: string, name: string): Promise<{ orgId: string; userId: string; keyId: string; apiKey: string }> {
  const suffix = Math.random().toString(36).slice(2, 10);
  const { orgId } = await adminCli(identityPod, "orgs", "create", "--name", `${name}-${suffix}`);
  const { userId } = await adminCli(
    identityPod,
    "users",
    "create",
    "--org",
    orgId!,
    "--email",
    `${name}-${suffix}@example.com`,
    "--password",
    `pw-${suffix}-${suffix}-long`,
  );
  const { keyId, key } = await adminCli(identityPod, "keys", "create", "--user", userId!, "--name", `${name}-key`);
  return { orgId: orgId!, userId: userId!, keyId: keyId!, apiKey: key! };
}

/** A REST call to the gateway Service (NodePort) or one gateway pod. */
export function api(base: string, key: string, method: string, route: string, body?: unknown): Promise<Response> {
  return fetch(`${base}/api/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
}

// One definition of retrying until a call stops throwing, shared with the deployment check.
export { eventually } from "@svc/platform";

export interface PodUsage {
  pod: string;
  /** CPU seconds the pod's container has used so far (every process in it: for egress, its handler, Chromium, Xvfb, PulseAudio; for the transcriber, each piece's Python). */
  cpuSeconds: number;
  /** Its memory now and its peak so far, in MiB (the cgroup's usage, page cache included). */
  memoryMiB: number;
  peakMemoryMiB: number;
}

/** The container totals of a component's (first) pod, read from its cgroup (v1 here; v2 names as a fallback). */
export async function podUsage(component: string): Promise<PodUsage> {
  const [pod] = await podsOf(component);
  if (!pod) throw new Error(`no running ${component} pod`);
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
