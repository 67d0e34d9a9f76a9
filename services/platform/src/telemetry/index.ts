// Metrics: one Prometheus registry per process and the pieces every service shares.
export * from "./metrics-registry.ts";
export * from "./metrics-server.ts";
export * from "./rpc-metrics.ts";
export * from "./scrape-gauge.ts";
export * from "./credential-cache-metrics.ts";
export * from "./consumer-lag-metrics.ts";
