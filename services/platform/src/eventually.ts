import { setTimeout as sleep } from "node:timers/promises";

/**
 * Retries `run` until it stops throwing, every `pollMs`, for up to `timeoutMs`; then throws its last
 * error. For what lags a moment behind another state (a Kubernetes Service's endpoints behind a
 * pod's readiness): the deployment check (gateway/src/deployment-check.ts) and the cluster tests
 * (test/cluster/support/cluster.ts).
 */
export async function eventually<T>(run: () => Promise<T>, timeoutMs = 30_000, pollMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await run();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(pollMs);
    }
  }
}
