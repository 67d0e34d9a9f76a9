// `scripts/node test/bench/memory.ts`: every process's memory idle and after load, split into V8
// heap, external (Buffers, outside the heap) and the rest (code, native modules, allocator slack),
// for issue #18's goal (each service ≤ 150 MB RSS idle, ≤ 250 MB after load). Starts the stack as
// the tests and `npm start` do (from source); MEMORY_LOAD_SECONDS (10) of POST /api/v1/meeting and
// GET /api/v1/webhook at MEMORY_CONNECTIONS (32). Prints one table; `memoryRows` is the bench section.
// MEMORY_PRODUCTION_TREE=<dir> (built by `scripts/build-production <dir>`) measures the compiled build instead.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { serviceNames, startStack, type ServiceName, type Stack } from "../support/stack.ts";
import { createTenant } from "../support/tenants.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { load } from "./load.ts";

const LOAD_SECONDS = Number(process.env.MEMORY_LOAD_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.MEMORY_CONNECTIONS ?? 32);
const MB = 1024 * 1024;

/** What the preloaded probe (memory-probe.mjs) reports, in bytes. */
interface Usage {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** heapUsed right after a full collection. */
  liveHeap: number;
  /** MB per V8 heap space (new_space, old_space, code_space, …). */
  spaces: Record<string, number>;
}

/** Each process's usage at one moment, by asking its probe (SIGUSR2) and reading what it wrote. */
async function snapshot(stack: Stack, dir: string): Promise<Record<ServiceName, Usage>> {
  const pids = Object.fromEntries(serviceNames.map((name) => [name, stack.pid(name)!])) as Record<ServiceName, number>;
  for (const pid of Object.values(pids)) rmSync(path.join(dir, `${pid}.json`), { force: true });
  for (const pid of Object.values(pids)) process.kill(pid, "SIGUSR2");
  const read = (pid: number): Usage | undefined => {
    try {
      return JSON.parse(readFileSync(path.join(dir, `${pid}.json`), "utf8")) as Usage;
    } catch {
      return undefined;
    }
  };
  for (let i = 0; i < 100; i++) {
    const usages = Object.values(pids).map(read);
    if (usages.every(Boolean)) return Object.fromEntries(serviceNames.map((name) => [name, read(pids[name])!])) as Record<ServiceName, Usage>;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("a process did not answer the memory probe");
}

export interface MemoryRow {
  process: ServiceName;
  idleRssMb: number;
  loadedRssMb: number;
  heapUsedMb: number;
  /** Of heapUsed, what a full collection keeps (the rest is garbage V8 has not collected yet). */
  liveHeapMb: number;
  externalMb: number;
  /** RSS not in the V8 heap nor external: code, native libraries, thread stacks, allocator slack. */
  otherMb: number;
}

/** Starts a stack with the probe preloaded, measures idle, loads it, measures again. */
export async function memoryRows(
  options: { loadSeconds?: number; connections?: number; nodeFlags?: string[]; productionTree?: string } = {},
): Promise<MemoryRow[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "memory-probe-"));
  const stack = await startStack({
    env: { LOG_LEVEL: "info", RATE_LIMIT_PER_SECOND: "1000000", MEMORY_PROBE_DIR: dir },
    nodeFlags: ["--expose-gc", "--import", path.join(import.meta.dirname, "memory-probe.mjs"), ...(options.nodeFlags ?? [])],
    ...(options.productionTree ? { productionTree: options.productionTree } : {}),
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const idle = await snapshot(stack, dir);
    const tenant = await createTenant(stack);
    const headers = { authorization: `Bearer ${tenant.apiKey}`, "content-type": "application/json" };
    for (let i = 0; i < 20; i++) {
      await callApi(apiBase(stack), "POST", "/webhook", { key: tenant.apiKey, body: { url: `https://example.com/hook/${i}`, events: ["meeting.ended"] } });
    }
    const durationSeconds = (options.loadSeconds ?? LOAD_SECONDS) / 2;
    const connections = options.connections ?? CONNECTIONS;
    const body = JSON.stringify({ title: "Memory bench", attendees: ["a@example.com", "b@example.com"] });
    const results = [
      await load({ url: `${stack.gatewayUrl}/api/v1/meeting`, method: "POST", headers, body, connections, durationSeconds }),
      await load({ url: `${stack.gatewayUrl}/api/v1/webhook`, headers, connections, durationSeconds }),
    ];
    // Errors are reported, not fatal: the memory figures after the load stand either way.
    const [meeting, webhook] = results.map((result) => `${result.requestsPerSecond.toFixed(0)} req/s, ${result.errors} errors`);
    process.stderr.write(`memory: load POST /meeting ${meeting}; GET /webhook ${webhook}\n`);
    const loaded = await snapshot(stack, dir);
    if (process.env.MEMORY_DEBUG) console.error(JSON.stringify({ idle, loaded }));
    return serviceNames.map((name) => ({
      process: name,
      idleRssMb: idle[name].rss / MB,
      loadedRssMb: loaded[name].rss / MB,
      heapUsedMb: loaded[name].heapUsed / MB,
      liveHeapMb: loaded[name].liveHeap / MB,
      externalMb: loaded[name].external / MB,
      otherMb: (loaded[name].rss - loaded[name].heapTotal - loaded[name].external) / MB,
    }));
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const productionTree = process.env.MEMORY_PRODUCTION_TREE;
  const rows = await memoryRows({ nodeFlags: process.argv.slice(2), ...(productionTree ? { productionTree: path.resolve(productionTree) } : {}) });
  const mb = (value: number) => value.toFixed(0);
  console.table(
    rows.map((row) => ({
      process: row.process,
      "idle RSS MB": mb(row.idleRssMb),
      "after load RSS MB": mb(row.loadedRssMb),
      "heapUsed MB": mb(row.heapUsedMb),
      "live heap MB": mb(row.liveHeapMb),
      "external MB": mb(row.externalMb),
      "other MB": mb(row.otherMb),
      goal: row.process === "gateway" ? "≤ 250 after load" : "≤ 150 idle, ≤ 250 after load",
      met: row.loadedRssMb <= 250 && (row.process === "gateway" || row.idleRssMb <= 150) ? "yes" : "NO",
    })),
  );
}
