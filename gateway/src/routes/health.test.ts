import express from "express";
import { HealthCheckResponse_ServingStatus as ServingStatus } from "@svc/proto/health/v1/health_pb";
import { describe, expect, it } from "vitest";
import type { Clients } from "../clients.ts";
import { healthRoutes, READINESS_CACHE_MS } from "./health.ts";

/** Health clients that count the checks they answer (each answer takes a little while, like an RPC). */
function countingHealth(names: string[]) {
  const asked: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
  const health = Object.fromEntries(
    names.map((name) => [
      name,
      {
        check: async () => {
          asked[name]! += 1;
          await new Promise((resolve) => setTimeout(resolve, 20));
          return { status: ServingStatus.SERVING };
        },
      },
    ]),
  ) as unknown as Clients["health"];
  return { health, asked };
}

async function serve(router: express.Router) {
  const server = express().use(router).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

describe("/readyz", () => {
  it("asks each service once per second however many probes arrive, and asks again after that", async () => {
    let now = 1_000_000;
    const { health, asked } = countingHealth(["identity", "meeting", "webhook"]);
    const gateway = await serve(healthRoutes({ health }, () => now));
    try {
      const burst = await Promise.all(Array.from({ length: 100 }, () => fetch(`${gateway.url}/readyz`)));
      expect(burst.every((response) => response.status === 200)).toBe(true);
      expect(await burst[0]!.json()).toEqual({ status: "ready", services: { identity: "serving", meeting: "serving", webhook: "serving" } });
      now += READINESS_CACHE_MS - 1;
      await fetch(`${gateway.url}/readyz`);
      expect(asked).toEqual({ identity: 1, meeting: 1, webhook: 1 });
      now += 1;
      await fetch(`${gateway.url}/readyz`);
      expect(asked).toEqual({ identity: 2, meeting: 2, webhook: 2 });
    } finally {
      gateway.close();
    }
  });

  it("fails while the gateway drains before a stop (shutdown-drain.ts), though every service still serves", async () => {
    let draining = false;
    const { health } = countingHealth(["identity"]);
    const gateway = await serve(healthRoutes({ health }, Date.now, () => draining));
    try {
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
      draining = true;
      const response = await fetch(`${gateway.url}/readyz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ status: "draining" });
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    } finally {
      gateway.close();
    }
  });
});
