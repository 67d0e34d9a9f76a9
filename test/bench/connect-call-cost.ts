// What one small unary Connect call costs, with and without our Connect-ES patch (patches/,
// docs/decisions/0017), in the same run: a server process (startServer, as every service serves)
// and a load-generator process (internalTransport, as every service calls) on one HTTP/2
// connection, a small call (WebhookService.ListEventTypes: an empty request, a ~40-byte answer).
//
//   scripts/node test/bench/connect-call-cost.ts [--seconds=10] [--warmup=2] [--rounds=3] [--concurrency=16,64] [--profile-dir=DIR]
//
// With --profile-dir every process runs under --cpu-prof, and the run ends with each variant's
// share of samples spent building exception objects (inside a DOMException or ConnectError
// constructor, stack capture included) and its top frames by self time.
//
// "unpatched" runs the same code against a pristine copy of the two packages (the installed ones
// with our patches reversed, in node_modules/.cache/connect-unpatched), to which a module resolve
// hook sends every import of @connectrpc/connect and @connectrpc/connect-node. The variants
// alternate within each round (which one goes first alternates too), and each figure is the median
// of the rounds: CPU µs per call of each process (from /proc), and calls per second.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { registerHooks } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { cpuMs } from "./process-cpu.ts";
import { topFrames } from "./profile-summary.ts";

const root = path.resolve(import.meta.dirname, "../..");
const unpatchedRoot = path.join(root, "node_modules/.cache/connect-unpatched");
const connectPackages = ["connect", "connect-node"];
type Variant = "unpatched" | "patched";

const option = (name: string, fallback: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? process.env[`BENCH_${name.toUpperCase()}`] ?? fallback;

/** The installed packages with our patches reversed, made once per run. */
function prepareUnpatchedCopy() {
  rmSync(unpatchedRoot, { recursive: true, force: true });
  for (const name of connectPackages) {
    cpSync(path.join(root, "node_modules/@connectrpc", name), path.join(unpatchedRoot, "node_modules/@connectrpc", name), { recursive: true });
  }
  for (const patch of readdirSync(path.join(root, "patches")).filter((file) => file.startsWith("@connectrpc+"))) {
    // Paths in the patch are a/node_modules/@connectrpc/<package>/…: strip three parts.
    execFileSync("patch", ["-R", "-p3", "-s", "-d", path.join(unpatchedRoot, "node_modules/@connectrpc"), "-i", path.join(root, "patches", patch)]);
  }
}

/** In a server or client process of the "unpatched" variant: Connect's imports resolve to the pristine copy. */
function useUnpatchedConnect() {
  // A parent inside the copy: from there Node finds the copy's packages first, and everything else
  // (@bufbuild/protobuf) further up, in the project's node_modules.
  const parentURL = pathToFileURL(path.join(unpatchedRoot, "package.json")).href;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (/^@connectrpc\/connect(-node)?(\/|$)/.test(specifier)) return nextResolve(specifier, { ...context, parentURL });
      return nextResolve(specifier, context);
    },
  });
}

/** Which Connect build this process loads, and whether it is patched (checked, not assumed). */
function loadedConnect() {
  const file = new URL(import.meta.resolve("@connectrpc/connect")).pathname;
  const signals = readFileSync(path.join(path.dirname(file), "protocol/signals.js"), "utf8");
  return { file: path.relative(root, file), patched: signals.includes("completedCallAbortReason") };
}

async function serve(variant: Variant) {
  if (variant === "unpatched") useUnpatchedConnect();
  const { create } = await import("@bufbuild/protobuf");
  const { createLogger } = await import("@svc/platform");
  const { startServer } = await import("@svc/platform/grpc");
  const { ListEventTypesResponseSchema, WebhookService } = await import("@svc/proto/svc/webhook/v1/webhook_pb");
  const response = create(ListEventTypesResponseSchema, { eventTypes: [{ type: "meeting.ended", description: "A meeting ended." }] });
  const server = await startServer({
    name: "connect-call-cost",
    host: "127.0.0.1",
    port: 0,
    logger: createLogger("connect-call-cost", "warn"),
    services: [WebhookService],
    routes: (router) => router.service(WebhookService, { listEventTypes: () => response }),
    isServing: async () => true,
  });
  // Stopped by the driver: exit normally, so that --cpu-prof writes its profile.
  process.once("SIGTERM", () => process.exit(0));
  process.stdout.write(`${JSON.stringify({ port: server.port, connect: loadedConnect() })}\n`);
}

async function load(variant: Variant, port: number, serverPid: number, concurrency: number, seconds: number, warmupSeconds: number) {
  if (variant === "unpatched") useUnpatchedConnect();
  const { createClient } = await import("@connectrpc/connect");
  const { internalTransport } = await import("@svc/platform/grpc");
  const { WebhookService } = await import("@svc/proto/svc/webhook/v1/webhook_pb");
  const client = createClient(WebhookService, internalTransport(`http://127.0.0.1:${port}`));
  let calls = 0;
  let stop = false;
  const worker = async () => {
    while (!stop) {
      await client.listEventTypes({});
      calls++;
    }
  };
  const workers = Array.from({ length: concurrency }, worker);
  await new Promise((resolve) => setTimeout(resolve, warmupSeconds * 1_000)); // warm-up: JIT, session, pools
  const start = { calls, at: performance.now(), own: process.cpuUsage(), server: cpuMs(serverPid) };
  await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  const end = { calls, at: performance.now(), own: process.cpuUsage(start.own), server: cpuMs(serverPid) };
  stop = true;
  await Promise.all(workers);
  const n = end.calls - start.calls;
  process.stdout.write(
    `${JSON.stringify({
      connect: loadedConnect(),
      callsPerSecond: n / ((end.at - start.at) / 1_000),
      clientCpuUsPerCall: (end.own.user + end.own.system) / n,
      serverCpuUsPerCall: ((end.server - start.server) * 1_000) / n,
    })}\n`,
  );
  process.exit(0);
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code} before answering: ${out}`)));
  });
}

interface Measured {
  callsPerSecond: number;
  clientCpuUsPerCall: number;
  serverCpuUsPerCall: number;
}

async function measure(
  variant: Variant,
  concurrency: number,
  seconds: number,
  warmupSeconds: number,
  profileDir: string | undefined,
  round: number,
): Promise<Measured> {
  const self = path.join(import.meta.dirname, "connect-call-cost.ts");
  const node = (args: string[]) => {
    const profile = profileDir
      ? ["--cpu-prof", `--cpu-prof-dir=${path.join(profileDir, variant)}`, `--cpu-prof-name=${args[0]}-c${concurrency}-r${round}.cpuprofile`]
      : [];
    return spawn(process.execPath, ["--conditions=source", ...profile, self, ...args], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  };
  const server = node(["serve", variant]);
  try {
    const started = JSON.parse(await firstLine(server)) as { port: number; connect: ReturnType<typeof loadedConnect> };
    const client = node(["load", variant, String(started.port), String(server.pid), String(concurrency), String(seconds), String(warmupSeconds)]);
    const result = JSON.parse(await firstLine(client)) as Measured & { connect: ReturnType<typeof loadedConnect> };
    // Each side loaded what the variant says: never compare a build with itself.
    for (const side of [started.connect, result.connect]) {
      if (side.patched !== (variant === "patched")) throw new Error(`${variant} run loaded ${side.file} (patched: ${side.patched})`);
    }
    return result;
  } finally {
    server.kill();
    await new Promise((resolve) => (server.exitCode === null ? server.once("exit", resolve) : resolve(undefined)));
  }
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Share of a profile's samples taken inside an exception's constructor (its stack capture included). */
function exceptionShare(profile: CpuProfile): number {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const inside = new Map<number, boolean>();
  const isInside = (id: number): boolean => {
    const known = inside.get(id);
    if (known !== undefined) return known;
    const name = byId.get(id)!.callFrame.functionName;
    const up = parent.get(id);
    const result = name === "DOMException" || name === "ConnectError" || (up !== undefined && isInside(up));
    inside.set(id, result);
    return result;
  };
  return profile.samples.filter(isInside).length / profile.samples.length;
}

/**
 * The busy samples of the profile's last `seconds` (the measured window: the load generator exits
 * at its end, and the server is stopped right after), without the idle ones, so that start-up,
 * warm-up and waiting do not dilute the shares.
 */
function measuredWindow(profile: CpuProfile, seconds: number): CpuProfile {
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === "(idle)").map((node) => node.id));
  const times: number[] = [];
  let t = 0;
  for (const delta of profile.timeDeltas) times.push((t += delta));
  const from = t - seconds * 1e6;
  const kept = profile.samples
    .map((sample, i) => ({ sample, delta: profile.timeDeltas[i]! }))
    .filter(({ sample }, i) => times[i]! >= from && !idle.has(sample));
  return { nodes: profile.nodes, samples: kept.map((k) => k.sample), timeDeltas: kept.map((k) => k.delta) };
}

function summariseProfiles(profileDir: string, seconds: number) {
  for (const variant of ["unpatched", "patched"] as const) {
    for (const role of ["serve", "load"]) {
      const files = readdirSync(path.join(profileDir, variant)).filter((file) => file.startsWith(`${role}-`));
      const profiles = files.map((file) => measuredWindow(JSON.parse(readFileSync(path.join(profileDir, variant, file), "utf8")) as CpuProfile, seconds));
      const shares = profiles.map(exceptionShare);
      console.log(
        `${variant} ${role === "serve" ? "server" : "client"}: building exception objects ${(median(shares) * 100).toFixed(1)}% of its busy samples in the measured window (median of ${shares.length} profiles); top frames by self time in the first:`,
      );
      for (const frame of topFrames(profiles[0]!, 8)) console.log(`    ${(frame.self * 100).toFixed(1).padStart(5)}%  ${frame.frame}`);
    }
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const uptime = () =>
  `load ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(" ")}`;

async function compare() {
  const seconds = Number(option("seconds", "10"));
  const rounds = Number(option("rounds", "3"));
  const warmupSeconds = Number(option("warmup", "2"));
  const concurrencies = option("concurrency", "16,64").split(",").map(Number);
  const profileDir = process.argv.find((arg) => arg.startsWith("--profile-dir="))?.slice("--profile-dir=".length);
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  prepareUnpatchedCopy();
  console.log(
    `connect-call-cost: ${rounds} rounds of ${seconds} s (after ${warmupSeconds} s of warm-up) per variant and concurrency, Node ${process.version}, ${uptime()}`,
  );
  for (const concurrency of concurrencies) {
    const results: Record<Variant, Measured[]> = { unpatched: [], patched: [] };
    for (let round = 0; round < rounds; round++) {
      const order: Variant[] = round % 2 === 0 ? ["unpatched", "patched"] : ["patched", "unpatched"];
      for (const variant of order) {
        const result = await measure(variant, concurrency, seconds, warmupSeconds, profileDir && path.resolve(profileDir), round + 1);
        results[variant].push(result);
        console.log(
          `  c=${concurrency} round ${round + 1} ${variant.padEnd(9)} ${result.callsPerSecond.toFixed(0).padStart(6)} calls/s, CPU µs per call: client ${result.clientCpuUsPerCall.toFixed(1)}, server ${result.serverCpuUsPerCall.toFixed(1)} (${uptime()})`,
        );
      }
    }
    const summary = (variant: Variant) => ({
      callsPerSecond: median(results[variant].map((r) => r.callsPerSecond)),
      client: median(results[variant].map((r) => r.clientCpuUsPerCall)),
      server: median(results[variant].map((r) => r.serverCpuUsPerCall)),
    });
    const [before, after] = [summary("unpatched"), summary("patched")];
    const change = (a: number, b: number) => `${b >= a ? "+" : ""}${(((b - a) / a) * 100).toFixed(1)}%`;
    console.log(`c=${concurrency}, median of ${rounds}:`);
    console.log(`  | variant | calls/s | client CPU µs/call | server CPU µs/call |`);
    console.log(`  | unpatched | ${before.callsPerSecond.toFixed(0)} | ${before.client.toFixed(1)} | ${before.server.toFixed(1)} |`);
    console.log(`  | patched | ${after.callsPerSecond.toFixed(0)} | ${after.client.toFixed(1)} | ${after.server.toFixed(1)} |`);
    console.log(
      `  | change | ${change(before.callsPerSecond, after.callsPerSecond)} | ${change(before.client, after.client)} | ${change(before.server, after.server)} |`,
    );
  }
  if (profileDir) summariseProfiles(path.resolve(profileDir), seconds);
  console.log(`connect-call-cost: done, ${uptime()}`);
}

const [role, ...args] = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
if (role === "serve") await serve(args[0] as Variant);
else if (role === "load") await load(args[0] as Variant, Number(args[1]), Number(args[2]), Number(args[3]), Number(args[4]), Number(args[5]));
else if (!existsSync(path.join(root, "patches"))) throw new Error("no patches/ folder");
else await compare();
