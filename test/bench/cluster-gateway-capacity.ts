// One prediction of the capacity model (docs/capacity.md) checked on the local cluster: the
// throughput of `POST /api/v1/auth` with the gateway at one CPU-limited replica and at two,
// predicted from the gateway's CPU per request that `npm run bench` measured, against what
// autocannon measures through the gateway's NodePort. Run by scripts/cluster/capacity-check, which
// brings the cluster up before and down after; alone, on a running cluster:
//
//   scripts/node test/bench/cluster-gateway-capacity.ts <results.json> [--cpu-limit=250m] [--replicas=1,2] [--seconds=15]
//
// It installs the chart (release svc, the local values) with one replica of identity, meeting and
// webhook, no recorder, and the gateway's CPU limited; then for each replica count upgrades the
// release and loads the gateway for --seconds after a warm-up. Beside throughput it reads each
// gateway pod's CPU (its Node process, /proc/1/stat) and its cgroup's throttling (cpu.stat), and
// the whole machine's busy CPU (/proc/stat), so a result says whether the limit or the machine
// bound it. The release is uninstalled at the end.
import { readFileSync } from "node:fs";
import pg from "pg";
import { chart, createTenantInCluster, gatewayUrl, helm, kubectl, namespace, podsOf, release, shellInPod, valuesFile } from "../cluster/support/cluster.ts";
import { waitFor } from "../support/wait.ts";
import { cpuQuantityCores, requestsPerSecondWithin } from "./capacity-model.ts";
import type { BenchResults } from "./capacity-units.ts";
import { load } from "./load.ts";
import { cpuMeter, cpuMs } from "./process-cpu.ts";

const CONNECTIONS = 32;
const WARMUP_SECONDS = 3;
const log = (message: string) => process.stderr.write(`capacity-check: ${message}\n`);

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const cpuLimit = option("cpu-limit", "250m");
const replicaCounts = option("replicas", "1,2").split(",").map(Number);
const seconds = Number(option("seconds", "15"));
const resultsFile = args.find((arg) => !arg.startsWith("--"));

interface PodCpu {
  cpuMs: number;
  throttledPeriods: number;
  periods: number;
}

/** A gateway pod's Node process CPU and its cgroup's CFS periods (cgroup v1 here; v2 elsewhere). */
async function podCpu(pod: string): Promise<PodCpu> {
  const out = await shellInPod(
    pod,
    "cat /proc/1/stat; cat /sys/fs/cgroup/cpu/cpu.stat 2>/dev/null || cat /sys/fs/cgroup/cpu,cpuacct/cpu.stat 2>/dev/null || cat /sys/fs/cgroup/cpu.stat 2>/dev/null || true",
  );
  const [stat, ...cgroup] = out.trim().split("\n");
  const fields = stat!.split(") ")[1]!.split(" ");
  const counter = (name: string) => Number(cgroup.find((line) => line.startsWith(`${name} `))?.split(" ")[1] ?? NaN);
  return { cpuMs: (Number(fields[11]) + Number(fields[12])) * 10, throttledPeriods: counter("nr_throttled"), periods: counter("nr_periods") };
}

async function gatewayPods(): Promise<string[]> {
  return (await podsOf("gateway")).map((pod) => pod.metadata.name);
}

/** The release with `replicas` gateways, each limited to cpuLimit, and rolled out (old pods gone). */
async function deploy(replicas: number, install: boolean) {
  const settings = [
    `gateway.replicaCount=${replicas}`,
    `gateway.resources.requests.cpu=${cpuLimit}`,
    `gateway.resources.limits.cpu=${cpuLimit}`,
    // One load generator's credential and address: the limiter must not be what bounds it.
    "gateway.rateLimitPerSecond=1000000",
    "identity.replicaCount=1",
    "meeting.replicaCount=1",
    "webhook.replicaCount=1",
    "recording.enabled=false",
  ];
  log(`${install ? "installing" : "upgrading"}: ${replicas} gateway replica(s) limited to ${cpuLimit}`);
  await helm(
    install ? "install" : "upgrade",
    release,
    chart,
    "-n",
    namespace,
    "-f",
    valuesFile,
    ...settings.flatMap((setting) => ["--set", setting]),
    "--wait",
    "--timeout",
    "10m",
  );
  await waitFor(
    async () => (await gatewayPods()).length === replicas && (await kubectl("-n", namespace, "get", "pods")).indexOf("Terminating") === -1,
    120_000,
    `${replicas} gateway pods, none terminating`,
  );
}

interface Measurement {
  replicas: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** The gateways' CPU per request, µs (all pods). */
  gatewayMicros: number;
  /** Cores the gateways used together, against replicas × the limit. */
  gatewayCores: number;
  /** Share of CFS periods in which the gateways' cgroups were throttled. */
  throttledShare: number;
  /** Busy cores of the whole machine during the load (everything on it, the load generator too). */
  machineCores: number;
  loadGeneratorMicros: number;
}

async function measure(replicas: number, apiKey: string): Promise<Measurement> {
  const options = {
    url: `${gatewayUrl}/api/v1/auth`,
    method: "POST" as const,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    connections: CONNECTIONS,
  };
  await load({ ...options, durationSeconds: WARMUP_SECONDS });
  const pods = await gatewayPods();
  const before = await Promise.all(pods.map(podCpu));
  const machine = cpuMeter({ machine: true });
  const selfBefore = cpuMs(process.pid);
  const startedAt = performance.now();
  const result = await load({ ...options, durationSeconds: seconds });
  const elapsedMs = performance.now() - startedAt;
  const machineMicros = machine.microsPer(result.requests).machine!;
  const selfMs = cpuMs(process.pid) - selfBefore;
  const after = await Promise.all(pods.map(podCpu));
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const gatewayMs = sum(after.map((pod, index) => pod.cpuMs - before[index]!.cpuMs));
  const periods = sum(after.map((pod, index) => pod.periods - before[index]!.periods));
  const throttled = sum(after.map((pod, index) => pod.throttledPeriods - before[index]!.throttledPeriods));
  return {
    replicas,
    ...result,
    gatewayMicros: (gatewayMs * 1000) / result.requests,
    gatewayCores: gatewayMs / elapsedMs,
    throttledShare: throttled / periods,
    machineCores: (machineMicros * result.requests) / 1000 / elapsedMs,
    loadGeneratorMicros: (selfMs * 1000) / result.requests,
  };
}

/** A fresh release and database, as test:cluster starts. */
async function clean() {
  await helm("uninstall", release, "-n", namespace, "--wait", "--timeout", "3m").catch(() => "");
  const admin = new pg.Client({ connectionString: process.env.SVC_CLUSTER_ADMIN_DATABASE_URL ?? "postgres://svc:svc@127.0.0.1:5432/svc" });
  await admin.connect();
  await admin.query("DROP DATABASE IF EXISTS svc_cluster WITH (FORCE)");
  await admin.query("CREATE DATABASE svc_cluster");
  await admin.end();
}

async function main() {
  if (!resultsFile) throw new Error("usage: cluster-gateway-capacity.ts <results.json of npm run bench> [--cpu-limit=250m] [--replicas=1,2] [--seconds=15]");
  const results = JSON.parse(readFileSync(resultsFile, "utf8")) as BenchResults;
  const authRow = results.rows.find((row) => row.scenario.startsWith("POST /api/v1/auth (API key"));
  const benchMicros = authRow?.cpuMicrosPerRequest?.gateway;
  if (!benchMicros) throw new Error(`${resultsFile} has no gateway CPU per request for POST /api/v1/auth (API key)`);
  const limitCores = cpuQuantityCores(cpuLimit);

  await clean();
  const measurements: Measurement[] = [];
  try {
    let apiKey = "";
    for (const [index, replicas] of replicaCounts.entries()) {
      await deploy(replicas, index === 0);
      if (index === 0) apiKey = (await createTenantInCluster((await podsOf("identity"))[0]!.metadata.name, "capacity")).apiKey;
      log(`${replicas} replica(s): warm-up ${WARMUP_SECONDS} s, then ${seconds} s at ${CONNECTIONS} connections`);
      measurements.push(await measure(replicas, apiKey));
      log(JSON.stringify(measurements.at(-1)));
    }
  } finally {
    await helm("uninstall", release, "-n", namespace, "--wait", "--timeout", "3m").catch((error: unknown) => log(`uninstall: ${String(error)}`));
  }

  const format = (value: number, digits = 0) =>
    Number.isFinite(value) ? value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "-";
  const lines = [
    `POST /api/v1/auth through the gateway's NodePort, ${CONNECTIONS} connections, ${seconds} s after ${WARMUP_SECONDS} s; gateway pods limited to ${cpuLimit} each;`,
    `predicted from the gateway's ${format(benchMicros)} µs per request of npm run bench at ${results.commit} (${results.measuredAt}): replicas × limit ÷ that.`,
    "",
    "| gateway replicas | predicted req/s | measured req/s | measured / predicted | p50 / p99 ms | errors | gateway µs per request in the pods | the limit ÷ that, req/s | gateway cores (of the limit) | throttled periods | machine busy cores | load generator µs per request |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...measurements.map((row) => {
      const predicted = requestsPerSecondWithin(row.replicas * limitCores, benchMicros);
      return (
        `| ${row.replicas} | ${format(predicted)} | ${format(row.requestsPerSecond)} | ${format(row.requestsPerSecond / predicted, 2)} | ` +
        `${format(row.p50Ms, 1)} / ${format(row.p99Ms, 1)} | ${row.errors} | ${format(row.gatewayMicros)} | ${format(requestsPerSecondWithin(row.replicas * limitCores, row.gatewayMicros))} | ` +
        `${format(row.gatewayCores, 2)} (${format(row.replicas * limitCores, 2)}) | ${format(row.throttledShare * 100)} % | ${format(row.machineCores, 2)} | ${format(row.loadGeneratorMicros)} |`
      );
    }),
    "",
  ];
  process.stdout.write(lines.join("\n"));
}

await main();
