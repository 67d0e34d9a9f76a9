import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "../..");

// `npm run test:cluster`: the chart on the local Kubernetes cluster (npm run cluster:up first).
// Not part of `npm test`'s suite: its files end in .cluster-test.ts. One file, its steps in order.
export default defineConfig({
  root,
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "cluster",
    include: ["test/cluster/**/*.cluster-test.ts"],
    reporters: ["default", "./test/support/closing-line-reporter.ts", "./test/support/slowest-files-reporter.ts"],
    fileParallelism: false,
    sequence: { concurrent: false },
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // A failed step leaves the cluster as it was, for kubectl to look at; later steps still run.
    bail: 0,
  },
});
