// Preloaded into each service process by test/bench/memory.ts (`--import`): on SIGUSR2 it writes
// the process's own split of memory (V8 heap, external buffers, code) to MEMORY_PROBE_DIR/<pid>.json,
// which /proc alone (RSS) cannot tell. SIGUSR2 because Node leaves it free (SIGUSR1 is the inspector).
import { writeFileSync } from "node:fs";
import path from "node:path";
import v8 from "node:v8";

const dir = process.env.MEMORY_PROBE_DIR;
if (dir) {
  process.on("SIGUSR2", () => {
    const usage = process.memoryUsage();
    const heap = v8.getHeapStatistics();
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size]));
    writeFileSync(
      path.join(dir, `${process.pid}.json`),
      JSON.stringify({ ...usage, heapTotalSize: heap.total_heap_size, codeSpace: spaces.code_space ?? 0, spaces }),
    );
  });
}
