import { runIdempotently, type Pool } from "@svc/platform/db";
import type { DeliveryLog, SubscriptionStore } from "../webhook-stores.ts";
import { findDelivery, listDeliveries, scheduleRedelivery } from "./delivery-log.ts";
import { storeSingleDelivery } from "./deliveries.ts";
import { recoverFailedDeliveries } from "./recovery.ts";
import { rotateSigningSecret } from "./secret-rotation.ts";
import {
  deleteSubscription,
  enableSubscription,
  findSubscription,
  insertSubscription,
  listSubscriptions,
  listSubscriptionsPage,
  updateSubscription,
} from "./subscriptions.ts";

/** SubscriptionStore on the service's Postgres schema; secret-issuing writes and their idempotency key share one transaction. */
export function pgSubscriptionStore(pool: Pool): SubscriptionStore {
  return {
    issuingSecret: (request, codec, work) =>
      runIdempotently(
        pool,
        request,
        codec,
        (client) =>
          work({
            insert: (subscription, maxPerOrg) => insertSubscription(client, subscription, maxPerOrg),
            rotateSecret: (rotation) => rotateSigningSecret(client, rotation),
          }),
        (value) => value.subscription?.webhookId ?? "",
      ),
    list: (orgId) => listSubscriptions(pool, orgId),
    listPage: (orgId, page) => listSubscriptionsPage(pool, orgId, page),
    find: (orgId, id) => findSubscription(pool, orgId, id),
    delete: (orgId, id) => deleteSubscription(pool, orgId, id),
    enable: (orgId, id) => enableSubscription(pool, orgId, id),
    update: (orgId, id, changes) => updateSubscription(pool, orgId, id, changes),
  };
}

/** DeliveryLog on the service's Postgres schema. */
export function pgDeliveryLog(pool: Pool): DeliveryLog {
  return {
    list: (query) => listDeliveries(pool, query),
    find: (orgId, subscriptionId, deliveryId) => findDelivery(pool, orgId, subscriptionId, deliveryId),
    scheduleRedelivery: (orgId, subscriptionId, deliveryId) => scheduleRedelivery(pool, orgId, subscriptionId, deliveryId),
    recoverFailed: (window) => recoverFailedDeliveries(pool, window),
    storeSingle: (event, subscriptionId, deliveryId, caps) => storeSingleDelivery(pool, event, subscriptionId, deliveryId, caps),
  };
}
