/**
 * The Node (V8) flags every long-running process starts with: `npm start`, the test stacks, the
 * Helm chart's commands and the image's CMD (test/deploy/chart.test.ts holds the chart to this list).
 *
 * V8's young generation otherwise grows to 32 MB semi-spaces (64 MB, 128 MB in the gateway under
 * load) at the first burst of allocation (start-up, migrations, a load spike) and stays there,
 * while each process's live heap is about 35 MB: most of the RSS above the issue's goal (each
 * service ≤ 150 MB idle, ≤ 250 MB after load). Capped at 4 MB, the young generation is scavenged
 * more often, each time as cheaply (the cost is the survivors, few per request). Measured with
 * test/bench/memory.ts: README "Benchmarks", "Memory". A flag, not code: V8 sizes its heap at start.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=4"];
