import type { Logger } from "./logger.ts";

export interface PeriodicTask {
  /** Runs the task now (after the current run, if one is in progress). */
  runNow(): Promise<void>;
  /** Stops scheduling and waits for the current run. */
  stop(): Promise<void>;
}

/**
 * Runs `task` at once and then every `intervalMs`, never two runs at a time. A failing run is
 * logged and the schedule continues: these tasks repair or tidy state, so the next run tries again.
 */
export function startPeriodicTask(name: string, intervalMs: number, task: () => Promise<unknown>, logger: Logger): PeriodicTask {
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const run = () => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        await task();
      } catch (error) {
        logger.warn({ err: error, task: name }, "periodic task failed; it runs again at its next interval");
      }
    });
    return running;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void run().then(schedule), intervalMs);
    timer.unref();
  };
  void run().then(schedule);

  return {
    runNow: run,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
