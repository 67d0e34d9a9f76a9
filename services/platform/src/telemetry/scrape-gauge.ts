import type { Logger } from "../logger.ts";
import { gaugeIn, type Registry } from "./metrics-registry.ts";

/** How long a scrape waits for a reading before it reports NaN rather than hold the scrape up. */
export const SCRAPE_READ_TIMEOUT_MS = 2_000;

/**
 * Gauges whose values are read (one database query for all of them) when Prometheus scrapes, so
 * they are never stale and nothing polls between scrapes. A reading that fails or is slower than
 * the timeout reports NaN: "unknown" on a dashboard, never an old number that looks healthy.
 */
export function scrapeGauges<K extends string>(options: {
  registry: Registry;
  logger: Logger;
  gauges: Record<K, { name: string; help: string }>;
  read: () => Promise<Record<K, number>>;
  timeoutMs?: number;
}): void {
  const { registry, logger } = options;
  const timeoutMs = options.timeoutMs ?? SCRAPE_READ_TIMEOUT_MS;
  // One reading per scrape: a scrape collects every gauge at once, so they all share the one in flight.
  let reading: Promise<Record<K, number> | undefined> | undefined;
  const readOnce = () => {
    reading ??= withTimeout(options.read(), timeoutMs)
      .catch((error: unknown) => {
        logger.warn({ err: error }, "metrics reading failed");
        return undefined;
      })
      .finally(() => (reading = undefined));
    return reading;
  };
  for (const key of Object.keys(options.gauges) as K[]) {
    const { name, help } = options.gauges[key];
    gaugeIn(registry, name, help, [], async (gauge) => {
      const values = await readOnce();
      gauge.set(values?.[key] ?? Number.NaN);
    });
  }
}

/** Rejects when `promise` has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reading within ${ms} ms`)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
