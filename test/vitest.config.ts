import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..");

export default defineConfig({
  root,
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    // The default summary, then one plain closing line that CI reads (closing-line-reporter.ts).
    reporters: ["default", "./test/support/closing-line-reporter.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["services/*/src/**/*.test.ts", "gateway/src/**/*.test.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          globalSetup: ["test/support/global-setup.ts"],
          setupFiles: ["test/support/check-responses.setup.ts"],
          // Each file starts its own stack (separate processes, its own database); some files stop
          // and restart the shared Kafka broker, so files run one at a time.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
