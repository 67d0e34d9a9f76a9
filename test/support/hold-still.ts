/**
 * Waits on purpose: for time to pass that the code under test measures (a lease, a grace period,
 * a rate-limit window), or to show that something does NOT happen within a while. Every such wait
 * says why, so a reader can tell it from a wait for a condition (use `waitFor` for those: polling
 * ends as soon as the condition holds, a fixed wait only adds time).
 */
export function holdStill(ms: number, reason: string): Promise<void> {
  if (!reason.trim()) throw new Error("holdStill needs a reason: say what the wait is for");
  return new Promise((resolve) => setTimeout(resolve, ms));
}
