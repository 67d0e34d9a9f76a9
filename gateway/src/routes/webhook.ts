import { Router } from "express";
import type { z } from "zod";
import { DeliveryStatus, HttpStatusClass, type Delivery, type Subscription } from "@svc/proto/svc/webhook/v1/webhook_pb";
import type { StatusClass, SubscribableEventType } from "@svc/platform/contract";
import type { Clients } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";
import { dataJsonSchema } from "../contract/events.ts";
import {
  CreateWebhookRequest,
  DeleteWebhookRequest,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  RecoverWebhookRequest,
  UpdateWebhookRequest,
  type CreatedWebhook,
  type EventTypeList,
  type RecoveredDeliveries,
  type RotatedSecret,
  type DeletedWebhook,
  type Delivery as DeliveryResource,
  type DeliveryPage,
  type Webhook,
  type WebhookList,
} from "../contract/webhook.ts";
import { idempotencyCall } from "../http/idempotency.ts";
import { parseJsonBody, parseQuery } from "../http/parse-request.ts";
import { deliveryStatusWords } from "./enum-words.ts";
import { enumName, isoOrNull, isoTime } from "./proto-to-json.ts";

/** A subscription as listed: never the secret; disabled ones say when and why. */
const webhookResource = (subscription: Subscription): z.input<typeof Webhook> => ({
  webhookId: subscription.webhookId,
  url: subscription.url,
  events: subscription.events,
  createdAt: isoTime(subscription.createdAt),
  disabled: subscription.disabledAt !== undefined,
  ...(subscription.disabledAt ? { disabledAt: isoTime(subscription.disabledAt), disabledReason: subscription.disabledReason } : {}),
  description: subscription.description,
  rateLimitPerSecond: subscription.rateLimitPerSecond ?? null,
  ...(subscription.previousSecretExpiresAt ? { previousSecretExpiresAt: isoTime(subscription.previousSecretExpiresAt) } : {}),
});

const statusClassValues: Record<StatusClass, HttpStatusClass> = {
  none: HttpStatusClass.NO_RESPONSE,
  "2xx": HttpStatusClass.SUCCESSFUL,
  "3xx": HttpStatusClass.REDIRECTION,
  "4xx": HttpStatusClass.CLIENT_ERROR,
  "5xx": HttpStatusClass.SERVER_ERROR,
};

const deliveryResource = (delivery: Delivery): z.input<typeof DeliveryResource> => ({
  deliveryId: delivery.deliveryId,
  webhookId: delivery.webhookId,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  status: enumName(deliveryStatusWords, delivery.status),
  createdAt: isoTime(delivery.createdAt),
  nextAttemptAt: isoOrNull(delivery.nextAttemptAt),
  attempts: delivery.attempts.map((attempt) => ({
    attemptedAt: isoTime(attempt.attemptedAt),
    statusCode: attempt.statusCode === 0 ? null : attempt.statusCode,
    latencyMs: attempt.latencyMs,
    error: attempt.error || null,
    responseExcerpt: attempt.responseExcerpt,
  })),
});

/**
 * POST/GET/DELETE /webhook (spec 4.3-4.5; docs/decisions/0010-webhook-signing-secrets-and-ssrf-guard.md) and the extensions: the delivery
 * log, redelivery, a test event and re-enabling. Mounted on the authenticated /api/v1 router;
 * the webhook service authenticates the forwarded credential, checks the scope and scopes every
 * call to the caller's organization.
 */
export function webhookRoutes(clients: Clients): Router {
  const router = Router();
  const options = (locals: Record<string, unknown>) => ({ headers: forwardedCredential(locals) });
  const noStore = "no-store";

  router.post("/webhook", async (req, res) => {
    const { url, events, description, rateLimitPerSecond } = parseJsonBody(CreateWebhookRequest, req.body);
    const idempotency = idempotencyCall(req, res);
    const call = options(res.locals);
    const { subscription, secret } = await clients.webhook.createSubscription(
      { url: url ?? "", events: events ?? [], description: description ?? "", rateLimitPerSecond: rateLimitPerSecond ?? undefined },
      { ...call, headers: { ...call.headers, ...idempotency.headers }, onHeader: idempotency.onHeader },
    );
    res.set("Cache-Control", noStore);
    const created: z.input<typeof CreatedWebhook> = {
      webhookId: subscription!.webhookId,
      url: subscription!.url,
      events: subscription!.events,
      secret,
      createdAt: isoTime(subscription!.createdAt),
      description: subscription!.description,
      rateLimitPerSecond: subscription!.rateLimitPerSecond ?? null,
    };
    res.status(201).json(created);
  });

  router.get("/webhook", async (req, res) => {
    const query = parseQuery(ListWebhooksQuery, req.query);
    const page = await clients.webhook.listSubscriptions({ pageSize: query.pageSize ?? 0, pageToken: query.pageToken ?? "" }, options(res.locals));
    res.set("Cache-Control", noStore);
    const list: z.input<typeof WebhookList> = { webhooks: page.subscriptions.map(webhookResource), nextPageToken: page.nextPageToken || null };
    res.json(list);
  });

  router.delete("/webhook", async (req, res) => {
    const { webhookId } = parseJsonBody(DeleteWebhookRequest, req.body);
    const deleted = await clients.webhook.deleteSubscription({ webhookId: webhookId ?? "" }, options(res.locals));
    const answer: z.input<typeof DeletedWebhook> = { webhookId: deleted.webhookId, deleted: true };
    res.json(answer);
  });

  router.patch("/webhook/:id", async (req, res) => {
    const body = parseJsonBody(UpdateWebhookRequest, req.body);
    const { subscription } = await clients.webhook.updateSubscription(
      {
        webhookId: req.params.id,
        url: body.url,
        events: body.events ? { types: body.events } : undefined,
        description: body.description,
        disabled: body.disabled,
        // null removes the limit: a change without a value.
        rateLimit: body.rateLimitPerSecond === undefined ? undefined : body.rateLimitPerSecond === null ? {} : { perSecond: body.rateLimitPerSecond },
      },
      options(res.locals),
    );
    res.set("Cache-Control", noStore);
    res.json(webhookResource(subscription!));
  });

  router.post("/webhook/:id/rotate-secret", async (req, res) => {
    const idempotency = idempotencyCall(req, res);
    const call = options(res.locals);
    const { subscription, secret } = await clients.webhook.rotateSecret(
      { webhookId: req.params.id },
      { ...call, headers: { ...call.headers, ...idempotency.headers }, onHeader: idempotency.onHeader },
    );
    res.set("Cache-Control", noStore);
    const rotated: z.input<typeof RotatedSecret> = {
      webhookId: subscription!.webhookId,
      secret,
      previousSecretExpiresAt: isoOrNull(subscription!.previousSecretExpiresAt),
    };
    res.json(rotated);
  });

  router.post("/webhook/:id/recover", async (req, res) => {
    const { since, until } = parseJsonBody(RecoverWebhookRequest, req.body);
    const recovered = await clients.webhook.recoverDeliveries({ webhookId: req.params.id, since: since ?? "", until }, options(res.locals));
    const answer: z.input<typeof RecoveredDeliveries> = {
      webhookId: recovered.webhookId,
      recovered: recovered.recovered,
      since: isoTime(recovered.since),
      until: isoTime(recovered.until),
    };
    res.status(202).json(answer);
  });

  router.get("/event-types", async (_req, res) => {
    const { eventTypes } = await clients.webhook.listEventTypes({}, options(res.locals));
    const answer: z.input<typeof EventTypeList> = {
      // The service says which types exist (it enforces them); the schemas are the contract's.
      eventTypes: eventTypes.map(({ type, description }) => ({ type, description, schema: dataJsonSchema(type as SubscribableEventType) })),
    };
    res.json(answer);
  });

  router.post("/webhook/:id/enable", async (req, res) => {
    const { subscription } = await clients.webhook.enableSubscription({ webhookId: req.params.id }, options(res.locals));
    res.json(webhookResource(subscription!));
  });

  router.get("/webhook/:id/deliveries", async (req, res) => {
    const query = parseQuery(ListDeliveriesQuery, req.query);
    const page = await clients.webhook.listDeliveries(
      {
        webhookId: req.params.id,
        pageSize: query.pageSize ?? 0,
        pageToken: query.pageToken ?? "",
        status: query.status ? deliveryStatusWords.valueOf(query.status) : DeliveryStatus.UNSPECIFIED,
        statusClass: query.statusClass ? statusClassValues[query.statusClass] : HttpStatusClass.UNSPECIFIED,
        since: query.since,
        until: query.until,
        meetingId: query.meetingId ?? "",
      },
      options(res.locals),
    );
    res.set("Cache-Control", noStore);
    const answer: z.input<typeof DeliveryPage> = { deliveries: page.deliveries.map(deliveryResource), nextPageToken: page.nextPageToken || null };
    res.json(answer);
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
