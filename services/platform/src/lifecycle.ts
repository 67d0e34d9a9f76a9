import { releaseMemoryWhenIdle } from "./idle-memory-release.ts";
import type { Logger } from "./logger.ts";

type Closer = () => Promise<unknown> | unknown;

/**
 * Runs a service's `start`, then on SIGTERM/SIGINT calls the closers it returned in reverse order
 * (stop accepting work first, close pools last). A second signal, or a shutdown slower than
 * `graceMs`, exits at once. Meanwhile the heap memory a busy spell leaves behind is given back
 * once the process is idle (idle-memory-release.ts).
 */
export function runUntilSignalled(logger: Logger, start: () => Promise<Closer[]>, graceMs = 10_000) {
  let closers: Closer[] = [];
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error("graceful shutdown timed out");
      process.exit(1);
    }, graceMs);
    timer.unref();
    for (const close of [...closers].reverse()) {
      try {
        await close();
      } catch (error) {
        logger.warn({ err: error }, "error while shutting down");
      }
    }
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  const stopReleasingMemory = releaseMemoryWhenIdle(logger);
  start().then(
    (started) => {
      closers = [stopReleasingMemory, ...started];
    },
    (error: unknown) => {
      logger.fatal({ err: error }, "failed to start");
      process.exit(1);
    },
  );
}
