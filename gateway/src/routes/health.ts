import { Router } from "express";
import { HealthCheckResponse_ServingStatus as ServingStatus } from "@svc/proto/health/v1/health_pb";
import type { Clients } from "../clients.ts";

/** /healthz: the gateway process is up. /readyz: every downstream service reports SERVING. */
export function healthRoutes(clients: Clients): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const entries = await Promise.all(
      Object.entries(clients.health).map(async ([name, health]) => {
        try {
          const { status } = await health.check({ service: "" }, { timeoutMs: 2_000 });
          return [name, status === ServingStatus.SERVING ? "serving" : "not_serving"] as const;
        } catch {
          return [name, "unreachable"] as const;
        }
      }),
    );
    const services = Object.fromEntries(entries);
    const ready = entries.every(([, status]) => status === "serving");
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "not_ready", services });
  });
  return router;
}
