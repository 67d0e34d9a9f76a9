import type { ServiceImpl } from "@connectrpc/connect";
import type { WebhookService } from "@svc/proto/svc/webhook/v1/webhook_pb";
import { deliveryHandlers } from "./delivery-handlers.ts";
import { subscriptionHandlers } from "./subscription-handlers.ts";
import type { WebhookServiceDependencies } from "./handler-context.ts";

/**
 * svc.webhook.v1.WebhookService: every operation authenticates the caller, checks its scope, and
 * touches only the caller's organization (another organization's subscription is NOT_FOUND, the
 * same answer as one that does not exist). The subscriptions' handlers and the delivery log's are
 * in a module each; their messages are made in webhook-wire.ts.
 */
export function webhookService(deps: WebhookServiceDependencies): ServiceImpl<typeof WebhookService> {
  return { ...subscriptionHandlers(deps), ...deliveryHandlers(deps) };
}
