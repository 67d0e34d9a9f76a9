import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express, { Router, type ErrorRequestHandler } from "express";
import { createMetricsRegistry, type Registry } from "@svc/platform/telemetry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpMetrics, NO_ROUTE } from "./http-metrics.ts";

let registry: Registry;
let server: Server;
let base: string;

beforeAll(async () => {
  registry = createMetricsRegistry("gateway");
  const app = express();
  app.use(httpMetrics(registry));
  const api = Router();
  const meetings = Router();
  meetings.get("/meeting/:id", (req, res) => void res.json({ id: req.params.id }));
  // The handler fails and the app-level error handler answers, after the routers have unwound.
  meetings.post("/meeting/:id/end", (_req, _res, next) => next(Object.assign(new Error("gone"), { status: 410 })));
  api.use(meetings);
  app.use("/api/v1", api);
  app.use(((error: { status?: number }, _req, res, _next) => void res.status(error.status ?? 500).end()) as ErrorRequestHandler);
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const count = async (labels: Record<string, string>) => {
  const metric = await registry.getSingleMetric("http_server_request_duration_seconds")!.get();
  return metric.values
    .filter((value) => (value as { metricName?: string }).metricName === "http_server_request_duration_seconds_count")
    .filter((value) => Object.entries(labels).every(([label, expected]) => value.labels[label] === expected))
    .reduce((total, value) => total + value.value, 0);
};

describe("HTTP metrics", () => {
  it("label a request with its route template (mount path included), never the path sent", async () => {
    await fetch(`${base}/api/v1/meeting/3f9a1c2e-1111-4a4a-9999-0123456789ab`);
    await fetch(`${base}/api/v1/meeting/another-id`);
    expect(await count({ method: "GET", route: "/api/v1/meeting/:id", status_code: "200" })).toBe(2);
  });

  it("keep the template when an error handler outside the router answers", async () => {
    await fetch(`${base}/api/v1/meeting/abc/end`, { method: "POST" });
    expect(await count({ method: "POST", route: "/api/v1/meeting/:id/end", status_code: "410" })).toBe(1);
  });

  it("label requests no route answered with one fixed value", async () => {
    await fetch(`${base}/no/such/path/12345`);
    expect(await count({ route: NO_ROUTE, status_code: "404" })).toBe(1);
    const metric = await registry.getSingleMetric("http_server_request_duration_seconds")!.get();
    expect(metric.values.map((value) => value.labels.route)).not.toContain("/no/such/path/12345");
  });
});
