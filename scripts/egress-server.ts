// LiveKit Egress (recordings) beside the media server, for `npm start` and the test stacks: its
// configuration, and a supervisor that restarts it. The binary comes from `scripts/egress` (built
// once from the Go module proxy and cached). In Kubernetes it is the chart's egress Deployment.
//
// The interface other parts rely on (keep it stable):
// - test stacks: `startStack({ recording: true })` (implies `media: true`) gives `stack.recording`:
//   `{ dir, egress }`, where `dir` is the folder egress writes into (also the services' RECORDING_DIR)
//   and `egress` is the SupervisedEgress below: `await stack.recording.egress.kill()` kills the egress
//   process and the recordings it runs, as a crash would; `await stack.recording.egress.ready()` waits
//   for the restarted one.
// - the services get RECORDING_DIR (an existing folder egress can write; give egress absolute file
//   paths under it) and reach egress only through LiveKit's API (EgressClient at LIVEKIT_URL).
// - `npm start` runs it when the media server runs and the binary can be built; RECORDING_DIR is
//   then under the embedded data folder (or RECORDING_DIR as set).
//
// Egress exits when one recording fails ("process failed, shutting down"), so it is restarted, with
// a growing delay, and each exit is logged. LiveKit never learns that the recordings the dead
// process held are over: they stay ACTIVE in its Egress API until the caller marks them failed.
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { descendantPids, hasExited, STOP_BOUNDS_AFTER_SERVICES_MS, stopProcess } from "./supervision.ts";

const root = path.resolve(import.meta.dirname, "..");

/**
 * What one recording costs, in CPUs, as egress counts it before accepting a request (its defaults
 * assume 4+ cores per room recording and refuse everything on two). Measured on a 2-core machine
 * (docs/benchmarks.md "Recording"): a grid room recording up to ~1 CPU steady (~0.5 when CPU is
 * scarce), an audio-only one 0.35-0.6 (it still runs egress's Chromium). Egress accepts while what it
 * counts plus the new request's cost stays under `max_cpu_utilization` of the cores; it counts a
 * recording at its cost for its first 30 s, then at what it measures. So on 2 cores a second grid
 * recording is refused while the first is starting, and accepted once the first runs at ~0.5 CPU.
 */
export const EGRESS_CPU_COST = {
  max_cpu_utilization: 0.95,
  room_composite_cpu_cost: 1.0,
  audio_room_composite_cpu_cost: 0.4,
  web_cpu_cost: 1.0,
  audio_web_cpu_cost: 0.4,
  participant_cpu_cost: 0.5,
  track_composite_cpu_cost: 0.5,
  track_cpu_cost: 0.25,
};

export interface EgressOptions {
  /** The media server's port on 127.0.0.1 (egress's room-composite browser joins it as ws://). */
  mediaPort: number;
  apiKey: string;
  apiSecret: string;
  /** host:port of the Redis the media server uses (see media-redis.ts). */
  redisAddress: string;
  /** Egress binds these on all interfaces (its code does not take an address): health (its status
   * JSON), Prometheus metrics, and the page its room-composite browser loads. */
  healthPort: number;
  prometheusPort: number;
  templatePort: number;
  logLevel?: "debug" | "info" | "warn" | "error";
}

/** Egress's configuration (JSON is YAML, so it is passed as its config body). */
export function egressConfig(options: EgressOptions) {
  return {
    api_key: options.apiKey,
    api_secret: options.apiSecret,
    ws_url: `ws://127.0.0.1:${options.mediaPort}`,
    // The room-composite browser refuses ws:// unless told that is intended (loopback, no TLS).
    insecure: true,
    redis: { address: options.redisAddress },
    health_port: options.healthPort,
    prometheus_port: options.prometheusPort,
    template_port: options.templatePort,
    logging: { level: options.logLevel ?? "info" },
    cpu_cost: EGRESS_CPU_COST,
  };
}

/** Whether egress is built, or can be built here (Go and GStreamer's headers: `scripts/egress deps`). */
export function egressAvailable(): boolean {
  return spawnSync("bash", [path.join(root, "scripts/egress"), "available"], { stdio: "ignore" }).status === 0;
}

/** Builds egress if needed (minutes, once) and resolves with its binary's path. */
export function egressBinary(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("bash", [path.join(root, "scripts/egress"), "path"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`scripts/egress path failed: ${stderr.trim().split("\n").slice(-5).join("\n")}`));
      else resolve(stdout.trim());
    });
  });
}

export interface SupervisedEgress {
  /** The running egress process's id (undefined between a crash and its restart). */
  pid(): number | undefined;
  /** How many times it has been restarted. */
  restarts(): number;
  /** Resolves once the current (or next, after an exit) egress process takes requests. */
  ready(): Promise<void>;
  /**
   * Kills the egress process and every recording process it started, as a crash would (SIGKILL by
   * default), and resolves once it is gone; the supervisor then restarts it (see `ready`).
   */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Recent output, for diagnosing a failing test. */
  logs(): string;
  /** Stops it for good: its recordings are stopped (their files finished), then anything left is killed. */
  stop(): Promise<void>;
}

export interface SuperviseEgressOptions extends EgressOptions {
  binary: string;
  /** One line per exit and restart. */
  log: (message: string) => void;
  /** Egress's own output, as it comes (besides `logs()`). */
  onOutput?: (chunk: Buffer) => void;
}

/** Delays before each restart; back to the first once a process has run a minute. */
const RESTART_DELAYS_MS = [500, 1_000, 2_000, 5_000, 10_000, 30_000];
const STABLE_MS = 60_000;
const LOG_LIMIT = 1_000_000;

/**
 * The recording processes egress started (`egress run-handler`, each in a session of its own, with
 * its Xvfb and Chromium below it), found by their command line, which carries this egress's
 * LiveKit URL. After egress dies they are no longer its children, so its tree alone misses them.
 */
function handlerPids(wsUrl: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (args.includes("run-handler") && args.some((arg) => arg.includes(`ws_url: ${wsUrl}\n`))) found.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

function killAll(pids: number[]) {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * PulseAudio for one egress: room recordings play the room's sound into a sink of their own there.
 * It does not start itself for root (no autospawn) and a shared one would mix every stack's sinks,
 * so each egress gets one in a runtime folder of its own, started with it and stopped with it (as
 * the container's entry point does in Kubernetes).
 */
function startPulseAudio(runtimeDir: string, onOutput: (chunk: Buffer) => void): ChildProcess {
  const pulse = spawn("pulseaudio", ["--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--log-level=error"], {
    env: { PATH: process.env.PATH ?? "", HOME: runtimeDir, XDG_RUNTIME_DIR: runtimeDir, PULSE_RUNTIME_PATH: runtimeDir },
    stdio: ["ignore", "pipe", "pipe"],
    cwd: runtimeDir,
  });
  pulse.stdout!.on("data", onOutput);
  pulse.stderr!.on("data", onOutput);
  return pulse;
}

/** Starts egress under supervision and resolves once it takes requests. */
export async function superviseEgress(options: SuperviseEgressOptions): Promise<SupervisedEgress> {
  const wsUrl = `ws://127.0.0.1:${options.mediaPort}`;
  // PulseAudio's socket and cookie, this egress's alone (mode 0700, as PulseAudio requires).
  const runtimeDir = mkdtempSync(path.join(os.tmpdir(), "svc-egress-"));
  const pulseEnv = {
    XDG_RUNTIME_DIR: runtimeDir,
    PULSE_RUNTIME_PATH: runtimeDir,
    PULSE_SERVER: `unix:${path.join(runtimeDir, "native")}`,
    PULSE_COOKIE: path.join(runtimeDir, ".config/pulse/cookie"),
  };
  let pulse: ChildProcess | undefined;
  const chunks: string[] = [];
  let size = 0;
  let child: ChildProcess | undefined;
  let restarts = 0;
  let failuresInARow = 0;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let readiness: { promise: Promise<void>; resolve: () => void; resolved: boolean } | undefined;

  /** Whoever waits for readiness is answered by the next process that becomes ready. */
  const newReadiness = () => {
    if (readiness && !readiness.resolved) return;
    let resolve!: () => void;
    const promise = new Promise<void>((done) => (resolve = done));
    const next = {
      promise,
      resolved: false,
      resolve: () => {
        next.resolved = true;
        resolve();
      },
    };
    readiness = next;
  };
  const append = (chunk: Buffer) => {
    const text = chunk.toString();
    chunks.push(text);
    size += text.length;
    while (size > LOG_LIMIT && chunks.length > 1) size -= chunks.shift()!.length;
    options.onOutput?.(chunk);
  };
  /** The egress process, what it started, and its recording processes with theirs. */
  const everyProcess = () => {
    const handlers = handlerPids(wsUrl);
    return [...(child?.pid && !hasExited(child) ? descendantPids(child.pid) : []), ...handlers.flatMap((pid) => descendantPids(pid))];
  };

  const launch = () => {
    const startedAt = Date.now();
    pulse = startPulseAudio(runtimeDir, append);
    const current = spawn(options.binary, [], {
      env: {
        // Egress starts each recording as `egress run-handler`, found on PATH.
        PATH: `${path.dirname(options.binary)}:${process.env.PATH ?? ""}`,
        // The real home: GStreamer caches its plugin registry there (seconds to rebuild).
        HOME: process.env.HOME ?? "",
        ...pulseEnv,
        // Through the environment, not the command line, so the secret is not in the process list.
        EGRESS_CONFIG_BODY: JSON.stringify(egressConfig(options)),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = current;
    let ready = false;
    const watchReady = (chunk: Buffer) => {
      if (!ready && chunk.toString().includes("service ready")) {
        ready = true;
        readiness!.resolve();
      }
    };
    for (const stream of [current.stdout!, current.stderr!]) {
      stream.on("data", append);
      stream.on("data", watchReady);
    }
    current.once("exit", (code, signal) => {
      if (stopping) return;
      // Its recordings die with it: a recording process left behind would hold its file and CPU.
      // PulseAudio too: the next egress starts with a fresh one, as a restarted container would.
      killAll(handlerPids(wsUrl).flatMap((pid) => descendantPids(pid)));
      if (pulse && !hasExited(pulse)) pulse.kill("SIGKILL");
      failuresInARow = Date.now() - startedAt >= STABLE_MS ? 0 : failuresInARow + 1;
      const delay = RESTART_DELAYS_MS[Math.min(failuresInARow, RESTART_DELAYS_MS.length) - 1] ?? RESTART_DELAYS_MS[0]!;
      options.log(`egress exited (${signal ?? code}); restarting it in ${delay / 1000} s`);
      newReadiness();
      restartTimer = setTimeout(() => {
        restarts += 1;
        launch();
      }, delay);
    });
  };

  const supervised: SupervisedEgress = {
    pid: () => (child && !hasExited(child) ? child.pid : undefined),
    restarts: () => restarts,
    ready: () => readiness!.promise,
    async kill(signal = "SIGKILL") {
      const current = child;
      if (!current || hasExited(current)) return;
      const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
      const pids = everyProcess();
      current.kill(signal);
      if (signal === "SIGKILL") killAll(pids);
      await exited;
    },
    logs: () => chunks.join(""),
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const current = child;
      if (current && !hasExited(current)) {
        const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
        // SIGINT: egress stops its recordings (their files are finished) and exits; SIGTERM would
        // wait for every recording to be stopped by its owner first.
        current.kill("SIGINT");
        const killer = setTimeout(() => killAll(everyProcess()), STOP_BOUNDS_AFTER_SERVICES_MS.egress);
        await exited;
        clearTimeout(killer);
      }
      killAll(handlerPids(wsUrl).flatMap((pid) => descendantPids(pid)));
      if (pulse && !hasExited(pulse)) await stopProcess(pulse, STOP_BOUNDS_AFTER_SERVICES_MS.pulseaudio);
      rmSync(runtimeDir, { recursive: true, force: true });
    },
  };

  newReadiness();
  launch();
  const first = child!;
  let onExitAtStart!: (code: number | null, signal: NodeJS.Signals | null) => void;
  let timer: NodeJS.Timeout | undefined;
  const failedStart = new Promise<never>((_, reject) => {
    onExitAtStart = (code, signal) => reject(new Error(`egress exited (${signal ?? code}) at start:\n${supervised.logs().slice(-4_000)}`));
    first.once("exit", onExitAtStart);
    timer = setTimeout(() => reject(new Error(`egress did not start within 30 s:\n${supervised.logs().slice(-4_000)}`)), 30_000);
  });
  try {
    await Promise.race([readiness!.promise, failedStart]);
  } catch (error) {
    await supervised.stop();
    throw error;
  } finally {
    first.off("exit", onExitAtStart);
    clearTimeout(timer);
  }
  return supervised;
}
