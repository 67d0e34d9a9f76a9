import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { Router, type Request } from "express";
import { z } from "zod";
import { DeliveryStatus, type Delivery, type Subscription } from "@svc/proto/svc/webhook/v1/webhook_pb";
import type { Clients } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";
import { HttpError } from "../http/errors.ts";
import { idempotencyCall } from "../http/idempotency.ts";

const CALL_TIMEOUT_MS = 10_000;

/**
 * The JSON shapes of the webhook bodies, and nothing more: wrong JSON types are refused here,
 * naming the field; every rule about the values (URL, SSRF guard, known events, UUIDs, limits)
 * lives in the webhook service so gRPC callers meet it too. Unknown fields are ignored; a
 * missing field is passed on empty for the service to refuse.
 */
const createBody = z.object({
  url: z.string({ error: "url must be a string" }).optional(),
  events: z.array(z.string({ error: "events must be an array of strings" }), { error: "events must be an array of strings" }).optional(),
});
const deleteBody = z.object({ webhookId: z.string({ error: "webhookId must be a string" }).optional() });

function parseBody<T>(req: Request, schema: z.ZodType<T>): T {
  const body: unknown = req.body ?? {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, "Request body must be a JSON object");
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, [...new Set(parsed.error.issues.map((issue) => issue.message))].join("; "));
  return parsed.data;
}

const iso = (timestamp: Timestamp | undefined) => (timestamp ? timestampDate(timestamp).toISOString() : null);

/** A subscription as listed: never the secret; disabled ones say when and why. */
const webhookResource = (subscription: Subscription) => ({
  webhookId: subscription.webhookId,
  url: subscription.url,
  events: subscription.events,
  createdAt: iso(subscription.createdAt),
  disabled: subscription.disabledAt !== undefined,
  ...(subscription.disabledAt ? { disabledAt: iso(subscription.disabledAt), disabledReason: subscription.disabledReason } : {}),
});

const statusNames: Record<DeliveryStatus, string> = {
  [DeliveryStatus.UNSPECIFIED]: "unknown",
  [DeliveryStatus.PENDING]: "pending",
  [DeliveryStatus.SUCCEEDED]: "succeeded",
  [DeliveryStatus.FAILED]: "failed",
  [DeliveryStatus.CANCELLED]: "cancelled",
};

const deliveryResource = (delivery: Delivery) => ({
  deliveryId: delivery.deliveryId,
  webhookId: delivery.webhookId,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  status: statusNames[delivery.status],
  createdAt: iso(delivery.createdAt),
  nextAttemptAt: iso(delivery.nextAttemptAt),
  attempts: delivery.attempts.map((attempt) => ({
    attemptedAt: iso(attempt.attemptedAt),
    statusCode: attempt.statusCode === 0 ? null : attempt.statusCode,
    latencyMs: attempt.latencyMs,
    error: attempt.error || null,
    responseExcerpt: attempt.responseExcerpt,
  })),
});

/** `?pageSize=` as a number for the service to judge; 0 (the default) when absent. */
function pageSizeFrom(value: unknown): number {
  if (value === undefined) return 0;
  // 0 means "unset" on the wire, so an explicit 0 is refused here.
  if (typeof value !== "string" || !/^[1-9]\d{0,3}$/.test(value)) throw new HttpError(400, "pageSize must be an integer between 1 and 100");
  return Number(value);
}

function pageTokenFrom(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value !== "string") throw new HttpError(400, "pageToken must be a single string");
  return value;
}

/**
 * POST/GET/DELETE /webhook (spec 4.3-4.5, DESIGN.md section 3) and the extensions: the delivery
 * log, redelivery, a test event and re-enabling. Mounted on the authenticated /api/v1 router;
 * the webhook service authenticates the forwarded credential, checks the scope and scopes every
 * call to the caller's organization.
 */
export function webhookRoutes(clients: Clients): Router {
  const router = Router();
  const options = (locals: Record<string, unknown>) => ({ headers: forwardedCredential(locals), timeoutMs: CALL_TIMEOUT_MS });
  const noStore = "no-store";

  router.post("/webhook", async (req, res) => {
    const { url, events } = parseBody(req, createBody);
    const idempotency = idempotencyCall(req, res);
    const call = options(res.locals);
    const { subscription, secret } = await clients.webhook.createSubscription(
      { url: url ?? "", events: events ?? [] },
      { ...call, headers: { ...call.headers, ...idempotency.headers }, onHeader: idempotency.onHeader },
    );
    res.set("Cache-Control", noStore);
    res.status(201).json({
      webhookId: subscription!.webhookId,
      url: subscription!.url,
      events: subscription!.events,
      secret,
      createdAt: iso(subscription!.createdAt),
    });
  });

  router.get("/webhook", async (_req, res) => {
    const { subscriptions } = await clients.webhook.listSubscriptions({}, options(res.locals));
    res.set("Cache-Control", noStore);
    res.json({ webhooks: subscriptions.map(webhookResource) });
  });

  router.delete("/webhook", async (req, res) => {
    const { webhookId } = parseBody(req, deleteBody);
    const deleted = await clients.webhook.deleteSubscription({ webhookId: webhookId ?? "" }, options(res.locals));
    res.json({ webhookId: deleted.webhookId, deleted: true });
  });

  router.post("/webhook/:id/enable", async (req, res) => {
    const { subscription } = await clients.webhook.enableSubscription({ webhookId: req.params.id }, options(res.locals));
    res.json(webhookResource(subscription!));
  });

  router.get("/webhook/:id/deliveries", async (req, res) => {
    const page = await clients.webhook.listDeliveries(
      { webhookId: req.params.id, pageSize: pageSizeFrom(req.query.pageSize), pageToken: pageTokenFrom(req.query.pageToken) },
      options(res.locals),
    );
    res.set("Cache-Control", noStore);
    res.json({ deliveries: page.deliveries.map(deliveryResource), nextPageToken: page.nextPageToken || null });
  });

  router.post("/webhook/:id/deliveries/:deliveryId/retry", async (req, res) => {
    const { delivery } = await clients.webhook.retryDelivery({ webhookId: req.params.id, deliveryId: req.params.deliveryId }, options(res.locals));
    res.status(202).json(deliveryResource(delivery!));
  });

  router.post("/webhook/:id/test", async (req, res) => {
    const { delivery } = await clients.webhook.sendTestEvent({ webhookId: req.params.id }, options(res.locals));
    res.status(202).json(deliveryResource(delivery!));
  });

  return router;
}
