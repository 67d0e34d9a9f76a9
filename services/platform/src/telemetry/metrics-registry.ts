import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

export type { Registry };

/**
 * The process's one metrics registry, with the Node runtime metrics (event-loop lag, heap, GC,
 * open handles, CPU). Every series carries `service`, so one dashboard tells the processes apart.
 */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * The registry when the process serves metrics (METRICS_PORT set), else undefined: with metrics
 * off no metric is registered and no hook is installed on a hot path (request, RPC, cache lookup,
 * delivery attempt), so they cost nothing.
 */
export function metricsRegistryIfServed(service: string, config: { METRICS_PORT?: number | undefined }): Registry | undefined {
  return config.METRICS_PORT === undefined ? undefined : createMetricsRegistry(service);
}

/**
 * A metric is registered once per registry; a second server or component in the same process asks
 * for the same name and shares it (prom-client refuses a duplicate registration).
 */
function shared<M>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}

export function counterIn<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  return shared(registry, name, () => new Counter({ name, help, labelNames, registers: [registry] }));
}

export function histogramIn<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[], buckets?: number[]): Histogram<L> {
  return shared(registry, name, () => new Histogram({ name, help, labelNames, registers: [registry], ...(buckets ? { buckets } : {}) }));
}

/** `collect`, when given, sets the gauge's value at scrape time. */
export function gaugeIn<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[] = [],
  collect?: (gauge: Gauge<L>) => Promise<void>,
): Gauge<L> {
  return shared(
    registry,
    name,
    () =>
      new Gauge({
        name,
        help,
        labelNames,
        registers: [registry],
        ...(collect
          ? {
              collect: async function (this: Gauge<L>) {
                await collect(this);
              },
            }
          : {}),
      }),
  );
}
