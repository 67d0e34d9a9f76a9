import { Router } from "express";
import { HealthCheckResponse_ServingStatus as ServingStatus } from "@svc/proto/health/v1/health_pb";
import type { Clients } from "../clients.ts";

/**
 * How long one readiness answer is reused. /readyz is public (probes cannot authenticate) and
 * not rate limited, and each answer asks every service: without this, anyone could turn each
 * request into one health RPC per service.
 */
export const READINESS_CACHE_MS = 1_000;

interface Readiness {
  ready: boolean;
  services: Record<string, "serving" | "not_serving" | "unreachable">;
}

/**
 * /healthz: the gateway process is up. /readyz: every downstream service reports SERVING, and the
 * process is not draining before a stop.
 */
export function healthRoutes(clients: Pick<Clients, "health">, now: () => number = Date.now, draining: () => boolean = () => false): Router {
  const router = Router();
  // Concurrent probes share the answer in flight, and later ones reuse it for READINESS_CACHE_MS.
  let latest: { startedAt: number; answer: Promise<Readiness> } | undefined;
  const readiness = () => {
    if (!latest || now() - latest.startedAt >= READINESS_CACHE_MS) latest = { startedAt: now(), answer: askServices(clients) };
    return latest.answer;
  };

  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    if (draining()) return void res.status(503).json({ status: "draining" });
    const { ready, services } = await readiness();
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "not_ready", services });
  });
  return router;
}

async function askServices(clients: Pick<Clients, "health">): Promise<Readiness> {
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
  return { ready: entries.every(([, status]) => status === "serving"), services: Object.fromEntries(entries) };
}
