// Preloaded into each service process by test/bench/memory.ts (`--import`): on SIGUSR2 it writes
// the process's own split of memory (V8 heap, external buffers) to MEMORY_PROBE_DIR/<pid>.json,
// which /proc alone (RSS) cannot tell. SIGUSR2 because Node leaves it free (SIGUSR1 is the inspector).
// JavaScript, not TypeScript: loading it must not load Node's type stripper into a compiled process.
import { writeFileSync } from "node:fs";
import path from "node:path";
import v8 from "node:v8";

const dir = process.env.MEMORY_PROBE_DIR;
if (dir) {
  process.on("SIGUSR2", () => {
    const usage = process.memoryUsage();
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, Math.round(space.space_size / 2 ** 20)]));
    // With --expose-gc (memory.ts passes it): how much of the heap is live, not garbage awaiting collection.
    const gc = globalThis.gc;
    gc?.();
    const liveHeap = gc ? process.memoryUsage().heapUsed : undefined;
    writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify({ ...usage, liveHeap, spaces }));
  });
}
