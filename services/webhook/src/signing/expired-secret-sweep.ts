import type { Logger, Pool } from "@svc/platform";
import { wipeExpiredPreviousSecrets } from "../db/secret-rotation.ts";

/**
 * Wipes rotated-out signing secrets once their grace window has ended, every `intervalMs` (and
 * once at start). They stop signing at the end of the window regardless (the dispatcher reads
 * them only while in force); this removes the ciphertext too, so nothing outlives its purpose.
 */
export function sweepExpiredSecrets(options: { pool: Pool; logger: Logger; intervalMs: number }): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const sweep = () => {
    running ??= wipeExpiredPreviousSecrets(options.pool)
      .then((wiped) => {
        if (wiped > 0) options.logger.info({ wiped }, "wiped rotated-out signing secrets past their grace window");
      })
      .catch((error: unknown) => options.logger.warn({ err: error }, "could not wipe expired signing secrets; retrying at the next sweep"))
      .finally(() => (running = undefined));
  };
  sweep();
  const timer = setInterval(sweep, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
