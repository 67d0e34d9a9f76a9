import { randomUUID } from "node:crypto";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyOf,
  invalidArgument,
  notFound,
  requestFingerprint,
  runIdempotently,
  type Authenticate,
  type createRateLimiter,
  type Pool,
} from "@svc/platform";
import {
  AttemptSchema,
  CreateSubscriptionRequestSchema,
  CreateSubscriptionResponseSchema,
  DeliverySchema,
  DeliveryStatus,
  SubscriptionSchema,
  type CreateSubscriptionResponse,
  type Delivery,
  type Subscription,
  type WebhookService,
} from "@svc/proto/svc/webhook/v1/webhook_pb";
import { findDelivery, listDeliveries, scheduleRedelivery, type DeliveryView } from "../db/delivery-log.ts";
import { storeSingleDelivery, type PendingCaps } from "../db/deliveries.ts";
import {
  deleteSubscription,
  enableSubscription,
  findSubscription,
  insertSubscription,
  listSubscriptions,
  type SubscriptionRecord,
} from "../db/subscriptions.ts";
import { checkTargetAddresses, urlProblems, type TargetPolicy } from "../delivery/target-policy.ts";
import { TEST_EVENT_TYPE } from "../event-types.ts";
import { testEventBody } from "../payloads.ts";
import type { SecretBox } from "../signing/secret-box.ts";
import { generateSigningSecret } from "../signing/signing-secret.ts";
import { decodePageToken, encodePageToken, eventsProblems, pageSizeOrProblem, uuidOrProblem } from "./request-rules.ts";

export interface WebhookServiceDependencies {
  pool: Pool;
  authenticate: Authenticate;
  secretBox: SecretBox;
  targetPolicy: TargetPolicy;
  maxSubscriptionsPerOrg: number;
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
} as const;

/** Changing subscriptions is for the organization's admins; members may read them and the log. */
const adminOnly = { adminOnly: true } as const;

/**
 * svc.webhook.v1.WebhookService: every operation authenticates the caller, checks its scope, and
 * touches only the caller's organization (another organization's subscription is NOT_FOUND, the
 * same answer as one that does not exist).
 */
/** Associated data of sealed idempotent replays, so they cannot be swapped with sealed signing secrets. */
const REPLAY_BINDING = "idempotent-replay:CreateSubscription";

export function webhookService(deps: WebhookServiceDependencies): ServiceImpl<typeof WebhookService> {
  const { pool, authenticate } = deps;
  // A registration's answer holds the signing secret: kept for idempotent replays only encrypted.
  const createdCodec = {
    encode: (response: CreateSubscriptionResponse) => deps.secretBox.seal(Buffer.from(toBinary(CreateSubscriptionResponseSchema, response)).toString("base64"), REPLAY_BINDING),
    decode: (stored: Uint8Array) => fromBinary(CreateSubscriptionResponseSchema, Buffer.from(deps.secretBox.open(Buffer.from(stored), REPLAY_BINDING), "base64")),
  };

  /** The caller's live subscription, or NOT_FOUND. */
  const subscriptionOf = async (orgId: string, webhookId: string) => {
    const subscription = await findSubscription(pool, orgId, webhookId);
    if (!subscription) throw notFound("Webhook");
    return subscription;
  };
  const requireEnabled = (subscription: SubscriptionRecord) => {
    if (subscription.disabledAt) {
      throw new ConnectError(`Webhook is disabled (${subscription.disabledReason}); enable it first`, Code.FailedPrecondition);
    }
  };
  /** Counts a test event against its subscription's allowance, or refuses it (429 with Retry-After). */
  const consumeTestEvent = async (webhookId: string) => {
    try {
      await deps.testEventLimiter.consume(webhookId);
    } catch (refusal) {
      // The limiter rejects with an Error when it fails, and with its verdict when the limit is reached.
      if (refusal instanceof Error) throw refusal;
      const retryAfter = Math.max(1, Math.ceil(((refusal as { msBeforeNext?: number }).msBeforeNext ?? 1_000) / 1_000));
      throw new ConnectError(`Too many test events for this webhook. Try again in ${retryAfter} seconds`, Code.ResourceExhausted, { "retry-after": String(retryAfter) });
    }
  };
  const webhookIdFrom = (value: string, field = "webhookId") => {
    const { id, problem } = uuidOrProblem(value, field);
    if (problem) throw invalidArgument([problem]);
    return id!;
  };

  return {
    async createSubscription(request, context: HandlerContext) {
      const caller = await authenticate(context, scopes.create, adminOnly);
      const problems = [...urlProblems(request.url, deps.targetPolicy), ...eventsProblems(request.events)];
      if (problems.length > 0) throw invalidArgument(problems);
      const url = new URL(request.url);
      const refusal = await checkTargetAddresses(url, deps.targetPolicy);
      if (refusal) throw invalidArgument([refusal]);

      const key = idempotencyKeyOf(context);
      const idempotent = key && { orgId: caller.orgId, key, fingerprint: requestFingerprint("CreateSubscription", toBinary(CreateSubscriptionRequestSchema, request)) };
      const result = await runIdempotently(pool, idempotent || undefined, createdCodec, async (client) => {
        const id = randomUUID();
        const secret = generateSigningSecret();
        const stored = await insertSubscription(
          client,
          { id, orgId: caller.orgId, url: url.href, events: [...new Set(request.events)], secretSealed: deps.secretBox.seal(secret, id) },
          deps.maxSubscriptionsPerOrg,
        );
        if (stored === "limit-reached") {
          // A quota the caller fixes by deleting, not by waiting: FAILED_PRECONDITION (409), not 429.
          throw new ConnectError(`An organization may have at most ${deps.maxSubscriptionsPerOrg} webhook subscriptions; delete one first`, Code.FailedPrecondition);
        }
        return create(CreateSubscriptionResponseSchema, { subscription: toSubscription(stored), secret });
      });
      if (result.replayed) context.responseHeader.set(IDEMPOTENT_REPLAYED_HEADER, "true");
      return result.value;
    },

    async listSubscriptions(_request, context) {
      const caller = await authenticate(context, scopes.read);
      return { subscriptions: (await listSubscriptions(pool, caller.orgId)).map(toSubscription) };
    },

    async deleteSubscription(request, context) {
      const caller = await authenticate(context, scopes.delete, adminOnly);
      const webhookId = webhookIdFrom(request.webhookId);
      if (!(await deleteSubscription(pool, caller.orgId, webhookId))) throw notFound("Webhook");
      return { webhookId };
    },

    async enableSubscription(request, context) {
      const caller = await authenticate(context, scopes.create, adminOnly);
      const webhookId = webhookIdFrom(request.webhookId);
      const enabled = await enableSubscription(pool, caller.orgId, webhookId);
      if (!enabled) throw notFound("Webhook");
      return { subscription: toSubscription(enabled) };
    },

    async listDeliveries(request, context) {
      const caller = await authenticate(context, scopes.read);
      const webhookId = webhookIdFrom(request.webhookId);
      const { size, problem } = pageSizeOrProblem(request.pageSize);
      const after = request.pageToken ? decodePageToken(request.pageToken) : undefined;
      const problems = [problem, request.pageToken && !after ? "pageToken is not a token this API returned" : undefined].filter((p) => p !== undefined && p !== "");
      if (problems.length > 0) throw invalidArgument(problems as string[]);
      await subscriptionOf(caller.orgId, webhookId);
      const page = await listDeliveries(pool, { orgId: caller.orgId, subscriptionId: webhookId, pageSize: size, ...(after ? { after } : {}) });
      return { deliveries: page.deliveries.map(toDelivery), nextPageToken: page.next ? encodePageToken(page.next) : "" };
    },

    async retryDelivery(request, context) {
      const caller = await authenticate(context, scopes.create, adminOnly);
      const webhookId = webhookIdFrom(request.webhookId);
      const deliveryId = webhookIdFrom(request.deliveryId, "deliveryId");
      const subscription = await subscriptionOf(caller.orgId, webhookId);
      requireEnabled(subscription);
      if (!(await findDelivery(pool, caller.orgId, webhookId, deliveryId))) throw notFound("Delivery");
      const scheduled = await scheduleRedelivery(pool, caller.orgId, webhookId, deliveryId);
      // Read before waking the dispatcher: the answer is the delivery as scheduled, not a race with the attempt.
      const delivery = toDelivery((await findDelivery(pool, caller.orgId, webhookId, deliveryId))!);
      if (scheduled) deps.wakeDispatcher();
      return { delivery };
    },

    async sendTestEvent(request, context) {
      const caller = await authenticate(context, scopes.create, adminOnly);
      const webhookId = webhookIdFrom(request.webhookId);
      const subscription = await subscriptionOf(caller.orgId, webhookId);
      requireEnabled(subscription);
      await consumeTestEvent(webhookId);
      const eventId = randomUUID();
      const deliveryId = randomUUID();
      const body = JSON.stringify(testEventBody(webhookId, caller.orgId));
      await storeSingleDelivery(pool, { id: eventId, orgId: caller.orgId, type: TEST_EVENT_TYPE, body }, webhookId, deliveryId, deps.pendingCaps);
      // Read before waking the dispatcher: the answer is the delivery as scheduled, not a race with the attempt.
      const stored = await findDelivery(pool, caller.orgId, webhookId, deliveryId);
      if (!stored) throw notFound("Webhook"); // deleted or disabled in the meantime
      deps.wakeDispatcher();
      return { delivery: toDelivery(stored) };
    },
  };
}

function toSubscription(record: SubscriptionRecord): Subscription {
  return create(SubscriptionSchema, {
    webhookId: record.id,
    url: record.url,
    events: record.events,
    createdAt: timestampFromDate(record.createdAt),
    ...(record.disabledAt ? { disabledAt: timestampFromDate(record.disabledAt), disabledReason: record.disabledReason ?? "" } : {}),
  });
}

const statusOf: Record<DeliveryView["status"], DeliveryStatus> = {
  pending: DeliveryStatus.PENDING,
  succeeded: DeliveryStatus.SUCCEEDED,
  failed: DeliveryStatus.FAILED,
  cancelled: DeliveryStatus.CANCELLED,
};

function toDelivery(view: DeliveryView): Delivery {
  return create(DeliverySchema, {
    deliveryId: view.id,
    webhookId: view.subscriptionId,
    eventType: view.eventType,
    eventId: view.eventId,
    status: statusOf[view.status],
    createdAt: timestampFromDate(view.createdAt),
    ...(view.nextAttemptAt ? { nextAttemptAt: timestampFromDate(view.nextAttemptAt) } : {}),
    attempts: view.attempts.map((attempt) =>
      create(AttemptSchema, {
        attemptedAt: timestampFromDate(attempt.attemptedAt),
        statusCode: attempt.statusCode ?? 0,
        latencyMs: attempt.latencyMs,
        error: attempt.error ?? "",
        responseExcerpt: attempt.responseExcerpt,
      }),
    ),
  });
}
