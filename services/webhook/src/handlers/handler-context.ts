// What every WebhookService handler is given, and the access rules they share.
import type { Authenticate, createRateLimiter } from "@svc/platform";
import type { PendingCaps } from "../delivery/pending-caps.ts";
import type { TargetPolicy } from "../delivery/target-policy.ts";
import type { SecretBox } from "../signing/secret-box.ts";
import type { DeliveryLog, SubscriptionStore } from "../webhook-stores.ts";

export interface WebhookServiceDependencies {
  subscriptions: SubscriptionStore;
  deliveries: DeliveryLog;
  authenticate: Authenticate;
  secretBox: SecretBox;
  targetPolicy: TargetPolicy;
  maxSubscriptionsPerOrg: number;
  /** How long a rotated-out secret keeps signing beside the new one. */
  rotationGraceMs: number;
  pendingCaps: PendingCaps;
  /** Test events per subscription (keyed by its id): a test event is an extra request to the endpoint. */
  testEventLimiter: ReturnType<typeof createRateLimiter>;
  /** Tells the dispatcher that a delivery is due now. */
  wakeDispatcher: () => void;
}

/** The OAuth scope each operation needs (API keys need none). */
export const scopes = {
  create: "webhook.create",
  read: "webhook.read",
  delete: "webhook.delete",
  update: "webhook.update",
} as const;

/** Changing subscriptions is for the organization's admins; members may read them and the log. */
export const adminOnly = { adminOnly: true } as const;
