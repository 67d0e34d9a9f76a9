// CPU time each process spent on a scenario, per request. Throughput on a shared 2-core machine
// moves with whatever else runs; the CPU a process spends per request moves much less, so it is
// the figure to compare between commits (next to the same-run ratios).
import { readdirSync, readFileSync } from "node:fs";

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds the process has used so far (NaN when it is gone). */
export function cpuMs(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    // Fields after the command name (which may contain spaces, so split after its closing paren).
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/**
 * CPU milliseconds used so far by every running process whose command is `command` (`postgres`:
 * the server and each connection's backend; `java`: the Kafka broker). A process that exits in
 * between takes its time with it, so compare runs that keep their connections open.
 */
function commandCpuMs(command: string): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === command) total += cpuMs(Number(entry));
    } catch {
      // gone in between
    }
  }
  return total;
}

/**
 * Busy CPU milliseconds of the whole machine so far, all cores (/proc/stat: every state but idle
 * and iowait): what the platform, its databases, the broker and the load generator spent together.
 */
function machineCpuMs(): number {
  const [, user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
  return ((user! + nice! + system! + irq! + softirq! + steal!) * 1000) / TICKS_PER_SECOND;
}

/** What a CpuMeter reads: processes by pid, every process running a command, the whole machine. */
export interface CpuSources {
  pids?: Record<string, number | undefined>;
  /** Name → command (`comm`), for programs of several processes (Postgres) or no known pid (Kafka). */
  commands?: Record<string, string>;
  machine?: boolean;
}

/** Reads the sources' CPU counters now; `microsPer(count)` gives each one's CPU µs per item since. */
export function cpuMeter(sources: CpuSources) {
  const read = (): Record<string, number> => ({
    ...Object.fromEntries(Object.entries(sources.pids ?? {}).map(([name, pid]) => [name, cpuMs(pid)])),
    ...Object.fromEntries(Object.entries(sources.commands ?? {}).map(([name, command]) => [name, commandCpuMs(command)])),
    ...(sources.machine ? { machine: machineCpuMs() } : {}),
  });
  const before = read();
  return {
    microsPer(count: number): Record<string, number> {
      return Object.fromEntries(Object.entries(read()).map(([name, ms]) => [name, count > 0 ? ((ms - before[name]!) * 1000) / count : NaN]));
    },
  };
}

/** Runs `work`, returning its result and the microseconds of CPU each source spent per request. */
export async function withCpuPerRequest<T extends { requests: number }>(
  sources: CpuSources,
  work: () => Promise<T>,
): Promise<T & { cpuMicrosPerRequest: Record<string, number> }> {
  const meter = cpuMeter(sources);
  const result = await work();
  return { ...result, cpuMicrosPerRequest: meter.microsPer(result.requests) };
}
