/**
 * How every long-running process starts: its Node (V8) flags and the environment it adds.
 * `npm start`, the test stacks, the Helm chart's commands and the image (its `CMD` and `ENV`) use
 * these; test/deploy/chart.test.ts holds the chart and the Dockerfile to them. Measured with
 * test/bench/memory.ts and `npm run bench`: docs/benchmarks.md, "Memory".
 */

/**
 * V8's young generation otherwise grows to 32 MB semi-spaces (64 MB, 128 MB in the gateway under
 * load) at the first burst of allocation (start-up, migrations, a load spike) and stays there,
 * while each process's live heap is about 35 MB: most of the RSS above the issue's goal (each
 * service ≤ 150 MB idle, ≤ 250 MB after load). Capped at 4 MB, the young generation is scavenged
 * more often, each time as cheaply (the cost is the survivors, few per request). A flag, not code:
 * V8 sizes its heap at start.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=4"];

/**
 * glibc's allocator, which holds the memory outside V8's heap (Buffers, HTTP/2 and TLS state,
 * compiled code's zones). By default it keeps up to 8 arenas per core, raises its mmap threshold
 * each time a large block is freed (up to 32 MB), so that later large blocks come from the arenas,
 * and returns an arena's free memory only from its top: after a load the webhook service kept
 * about 120 MB outside a V8 heap of 38 MB, and did not give it back when idle. Two arenas, blocks
 * of 64 KB and more mapped on their own (unmapped when freed), and trimming once 128 KB are free
 * at the top: 20-30 MB less RSS after load, no CPU per request measurably added.
 * (Ignored where the C library is not glibc; the image's is.)
 */
export const SERVICE_ENVIRONMENT: Readonly<Record<string, string>> = {
  GLIBC_TUNABLES: "glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536:glibc.malloc.trim_threshold=131072",
};
