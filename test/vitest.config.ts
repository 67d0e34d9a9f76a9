import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..");

/**
 * The integration files that take something every other file shares, so they run one at a time,
 * after the parallel ones (groupOrder 1): each stops the shared Kafka broker, or listens on the
 * platform's fixed default ports. Every other file has a stack of its own (free ports, its own
 * database, Redis key prefix and Kafka topics, its own media server) and runs beside others.
 */
export const serialFiles = [
  // Stops and restarts the shared Kafka broker (an outage the others would see).
  "test/meeting/kafka-outage.test.ts",
  // `npm start` on the default ports (8080, 50051-50058, 7880, 54329): two at once collide.
  "test/platform/npm-start-stop.test.ts",
];

/**
 * Files at once in the parallel group. Measured on the 2-core CI machine (docs/testing.md, "How
 * the suite runs"): most of a file's time is spent waiting on processes, sockets, timers and
 * browsers, so more files than cores fit; SVC_TEST_WORKERS overrides it for a measurement.
 */
const parallelWorkers = Number(process.env.SVC_TEST_WORKERS ?? 3);

const integration = {
  globalSetup: ["test/support/global-setup.ts"],
  setupFiles: ["test/support/check-responses.setup.ts"],
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  root,
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    // The default summary, then one plain closing line that CI reads (closing-line-reporter.ts),
    // then the slowest files (slowest-files-reporter.ts).
    reporters: ["default", "./test/support/closing-line-reporter.ts", "./test/support/slowest-files-reporter.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["services/*/src/**/*.test.ts", "gateway/src/**/*.test.ts"],
          // A timeout catches a hang, not a slow machine: the password tests hash with scrypt at
          // its production cost (about 0.25 s of CPU each), which took over vitest's default 5 s
          // beside three integration files on two cores.
          testTimeout: 30_000,
          // Projects of one group must agree on the worker count (vitest refuses otherwise).
          maxWorkers: parallelWorkers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: serialFiles,
          ...integration,
          maxWorkers: parallelWorkers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration-serial",
          include: serialFiles,
          ...integration,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
