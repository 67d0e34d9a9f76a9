import { createClient } from "@connectrpc/connect";
import { Health } from "@svc/proto/health/v1/health_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { internalTransport } from "../grpc/internal-transport.ts";
import { startServer, type RunningServer } from "../grpc/server.ts";
import { createLogger } from "../logger.ts";
import { createMetricsRegistry, type Registry } from "./metrics-registry.ts";
import { startMetricsServer, type RunningMetricsServer } from "./metrics-server.ts";
import { scrapeGauges } from "./scrape-gauge.ts";

const logger = createLogger("test", "silent");
let registry: Registry;
let rpcServer: RunningServer;
let metricsServer: RunningMetricsServer;
const scrape = () => fetch(`http://127.0.0.1:${metricsServer.port}/metrics`);

beforeAll(async () => {
  registry = createMetricsRegistry("test");
  rpcServer = await startServer({
    name: "test",
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [],
    routes: () => undefined,
    isServing: async () => true,
    metrics: registry,
  });
  metricsServer = await startMetricsServer({ registry, host: "127.0.0.1", port: 0, logger });
});
afterAll(async () => {
  await metricsServer?.close();
  await rpcServer?.close();
});

/** The value of the sample of `name` carrying every label in `labels` (0 when absent). */
function sampleValue(text: string, name: string, labels: Record<string, string>): number {
  const line = text
    .split("\n")
    .find((candidate) => candidate.startsWith(`${name}{`) && Object.entries(labels).every(([label, value]) => candidate.includes(`${label}="${value}"`)));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

describe("metrics server", () => {
  it("serves the registry in the Prometheus text format at /metrics, with the Node runtime metrics and the service label", async () => {
    const response = await scrape();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds\{service="test"\} /m);
    expect(text).toMatch(/^process_resident_memory_bytes\{service="test"\} /m);
  });

  it("answers 404 for any other path and 405 for other methods", async () => {
    expect((await fetch(`http://127.0.0.1:${metricsServer.port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsServer.port}/metrics`, { method: "POST" })).status).toBe(405);
  });

  it("counts every RPC answered by service, method and status code", async () => {
    const countOf = async (status: string) =>
      sampleValue(await (await scrape()).text(), "rpc_server_duration_seconds_count", {
        rpc_service: "grpc.health.v1.Health",
        rpc_method: "Check",
        rpc_grpc_status_code: status,
      });
    const health = createClient(Health, internalTransport(`http://127.0.0.1:${rpcServer.port}`));
    const before = { ok: await countOf("0"), notFound: await countOf("5") };
    await health.check({});
    await health.check({});
    await expect(health.check({ service: "no.such.Service" })).rejects.toThrow();
    expect(await countOf("0")).toBe(before.ok + 2);
    expect(await countOf("5")).toBe(before.notFound + 1);
  });
});

describe("scrape-time gauges", () => {
  it("read their values once per scrape, and report NaN (not a stale value) when the reading fails or is slow", async () => {
    const own = createMetricsRegistry("gauges");
    let reads = 0;
    let behaviour: "ok" | "fail" | "slow" = "ok";
    scrapeGauges({
      registry: own,
      logger,
      timeoutMs: 100,
      gauges: { a: { name: "test_a_items", help: "a" }, b: { name: "test_b_items", help: "b" } },
      read: async () => {
        reads++;
        if (behaviour === "fail") throw new Error("database down");
        if (behaviour === "slow") await new Promise((resolve) => setTimeout(resolve, 500));
        return { a: 3, b: 4 };
      },
    });
    const text = await own.metrics();
    expect(text).toMatch(/^test_a_items\{service="gauges"\} 3$/m);
    expect(text).toMatch(/^test_b_items\{service="gauges"\} 4$/m);
    expect(reads).toBe(1);
    behaviour = "fail";
    expect(await own.metrics()).toMatch(/^test_a_items\{service="gauges"\} NaN$/im);
    behaviour = "slow";
    expect(await own.metrics()).toMatch(/^test_b_items\{service="gauges"\} NaN$/im);
  });
});
