import { releaseMemoryWhenIdle } from "./idle-memory-release.ts";
import type { Logger } from "./logger.ts";
import { afterDrain, type ShutdownDrain } from "./shutdown-drain.ts";

type Closer = () => Promise<unknown> | unknown;

/** What a started service hands back to be stopped, in the order that loses no work. */
export interface Shutdown {
  /**
   * Everything that takes new work (listeners, consumers): all told to stop accepting at the same
   * moment, then awaited together while the work they took finishes. One slow drain never keeps
   * another listener open.
   */
  stopAccepting: Closer[];
  /** Then closed one after another, in this order: what that work used (relays, clients, caches), pools last. */
  thenClose: Closer[];
}

/** A part a shutdown ends: a periodic task, relay or dispatcher (stop), a client, bus or listener (close). */
export type Stoppable = { stop(): unknown } | { close(): unknown };

const ending =
  (part: Stoppable): Closer =>
  () =>
    "stop" in part ? part.stop() : part.close();

/**
 * A service's Shutdown from its parts, the one way every service lists them: `listeners` close
 * once the drain is over (shutdown-drain.ts); `consumers` stop taking work at once, beside them;
 * then `thenClose`, one after another, in the order given (the work's users before what they use).
 */
export function serviceShutdown(drain: ShutdownDrain, parts: { listeners: Stoppable[]; consumers?: Stoppable[]; thenClose: Stoppable[] }): Shutdown {
  return {
    stopAccepting: [...afterDrain(drain, parts.listeners.map(ending)), ...(parts.consumers ?? []).map(ending)],
    thenClose: parts.thenClose.map(ending),
  };
}

/**
 * How long a stopping process may take before it exits anyway: the chart's
 * terminationGracePeriodSeconds (30 s) minus its preStop sleep (5 s), with room to spare, so the
 * kubelet never has to SIGKILL a pod that is still tidying up.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 15_000;

/**
 * Runs a service's `start`, then on SIGTERM or SIGINT stops it as `Shutdown` says. The stop is
 * bounded: after `graceMs` the process exits whatever is still open (a database, broker or peer
 * that vanished at the same moment must not hold it), and a second signal exits at once. Exiting
 * never waits on the log (logger.ts). Meanwhile the heap memory a busy spell leaves behind is given
 * back once the process is idle (idle-memory-release.ts).
 */
export function runUntilSignalled({ logger, graceMs = DEFAULT_SHUTDOWN_GRACE_MS }: { logger: Logger; graceMs?: number }, start: () => Promise<Shutdown>) {
  let started: Shutdown | undefined;
  let stopping = false;
  const stopReleasingMemory = releaseMemoryWhenIdle(logger);
  const closeAll = async (shutdown: Shutdown) => {
    await Promise.all(shutdown.stopAccepting.map((close) => settle(close, logger)));
    for (const close of shutdown.thenClose) await settle(close, logger);
  };
  const stop = async (reason: string) => {
    if (stopping) {
      logger.warn({ reason }, "stopping at once");
      process.exit(1);
    }
    stopping = true;
    logger.info({ reason, graceMs }, "shutting down");
    setTimeout(() => {
      logger.error({ graceMs }, "shutdown took longer than its grace period: exiting with work still open");
      process.exit(1);
    }, graceMs).unref();
    stopReleasingMemory();
    // Signalled while starting: nothing has taken work yet, so there is nothing to drain.
    if (started) await closeAll(started);
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  // Started by a supervisor with an IPC channel (scripts/supervision.ts): its end closes when the
  // supervisor is gone, however it went; a service never outlives the one that owns it.
  if (process.channel) {
    process.channel.unref();
    process.once("disconnect", () => void stop("supervisor gone"));
  }
  start().then(
    (shutdown) => {
      started = shutdown;
    },
    (error: unknown) => {
      logger.fatal({ err: error }, "failed to start");
      process.exit(1);
    },
  );
}

async function settle(close: Closer, logger: Logger) {
  try {
    await close();
  } catch (error) {
    logger.warn({ err: error }, "error while shutting down");
  }
}
