/**
 * How long to wait before retrying after `failures` consecutive failures: `initialMs` doubling per
 * failure up to `maxMs`, with "equal jitter" (a random half on top of half the step), so replicas
 * that failed together do not retry in step.
 */
export function retryBackoffMs(failures: number, options: { initialMs: number; maxMs: number }): number {
  const step = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(Math.max(failures, 1) - 1, 30));
  return step / 2 + Math.random() * (step / 2);
}
