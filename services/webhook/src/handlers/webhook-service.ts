import { randomUUID } from "node:crypto";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  captureEventContext,
  invalidArgument,
  RequestCheck,
  requireUuid,
  notFound,
  type Authenticate,
  type createRateLimiter,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyOf,
} from "@svc/platform";
import { idempotentRequest } from "@svc/platform/db";
import {
  AttemptSchema,
  CreateSubscriptionRequestSchema,
  CreateSubscriptionResponseSchema,
  DeliverySchema,
  DeliveryStatus,
  HttpStatusClass,
  RotateSecretRequestSchema,
  RotateSecretResponseSchema,
  SubscriptionSchema,
  type CreateSubscriptionResponse,
  type Delivery,
  type RotateSecretResponse,
  type Subscription,
  type WebhookService,
} from "@svc/proto/svc/webhook/v1/webhook_pb";
import { errorMetadata, MEETING_ID_TEXT, type StatusClass } from "@svc/platform/contract";
import type { DeliveryFilter, DeliveryView } from "../db/delivery-log.ts";
import type { PendingCaps } from "../delivery/pending-caps.ts";
import type { SubscriptionChanges, SubscriptionRecord } from "../db/subscriptions.ts";
import { checkTargetAddresses, urlProblems, type TargetPolicy } from "../delivery/target-policy.ts";
import { EVENT_TYPE_DESCRIPTIONS, SUBSCRIBABLE_EVENT_TYPES, TEST_EVENT_TYPE } from "../event-types.ts";
import { testEventBody } from "../payloads.ts";
import type { SecretBox } from "../signing/secret-box.ts";
import { generateSigningSecret } from "../signing/signing-secret.ts";
import type { DeliveryLog, SubscriptionStore } from "../webhook-stores.ts";
import { dateTimeOf, decodePageToken, descriptionOf, encodePageToken, eventsOf, pageSizeOf, rateLimitOf, recoveryWindowOf } from "../api/request-rules.ts";

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

/** Why a subscription is disabled when its organization disables it (PATCH disabled: true). */
export const DISABLED_BY_ORGANIZATION = "disabled by the organization";

/** Changing subscriptions is for the organization's admins; members may read them and the log. */
const adminOnly = { adminOnly: true } as const;

/** Associated data of sealed idempotent replays, so they cannot be swapped with sealed signing secrets. */
const REPLAY_BINDING = "idempotent-replay:CreateSubscription";
const ROTATION_REPLAY_BINDING = "idempotent-replay:RotateSecret";

/**
 * svc.webhook.v1.WebhookService: every operation authenticates the caller, checks its scope, and
 * touches only the caller's organization (another organization's subscription is NOT_FOUND, the
 * same answer as one that does not exist).
 */
export function webhookService(deps: WebhookServiceDependencies): ServiceImpl<typeof WebhookService> {
  const { subscriptions, deliveries, authenticate } = deps;
  // A registration's answer holds the signing secret: kept for idempotent replays only encrypted.
  const createdCodec = {
    encode: (response: CreateSubscriptionResponse) =>
      deps.secretBox.seal(Buffer.from(toBinary(CreateSubscriptionResponseSchema, response)).toString("base64"), REPLAY_BINDING),
    decode: (stored: Uint8Array) =>
      fromBinary(CreateSubscriptionResponseSchema, Buffer.from(deps.secretBox.open(Buffer.from(stored), REPLAY_BINDING), "base64")),
  };
  // A rotation's answer holds the new secret: the same care.
  const rotatedCodec = {
    encode: (response: RotateSecretResponse) =>
      deps.secretBox.seal(Buffer.from(toBinary(RotateSecretResponseSchema, response)).toString("base64"), ROTATION_REPLAY_BINDING),
    decode: (stored: Uint8Array) =>
      fromBinary(RotateSecretResponseSchema, Buffer.from(deps.secretBox.open(Buffer.from(stored), ROTATION_REPLAY_BINDING), "base64")),
  };

  /**
   * The URL rules of registration (before the request's other problems) and the SSRF check of its
   * host's addresses; throws INVALID_ARGUMENT naming every problem of the request.
   */
  const checkedUrl = async (value: string, check: RequestCheck): Promise<URL> => {
    new RequestCheck().add(...urlProblems(value, deps.targetPolicy), ...check.problems).done();
    const url = new URL(value);
    const refusal = await checkTargetAddresses(url, deps.targetPolicy);
    if (refusal) throw invalidArgument([refusal]);
    return url;
  };

  /** The caller's live subscription, or NOT_FOUND. */
  const subscriptionOf = async (orgId: string, webhookId: string) => {
    const subscription = await subscriptions.find(orgId, webhookId);
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
      throw new ConnectError(`Too many test events for this webhook. Try again in ${retryAfter} seconds`, Code.ResourceExhausted, {
        [errorMetadata.retryAfter]: String(retryAfter),
      });
    }
  };
  /** The id in a request field (`webhookId`, `deliveryId`), lower-cased; INVALID_ARGUMENT when it is not a UUID. */
  const uuidFrom = (value: string, field = "webhookId") => requireUuid(field, value);

  return {
    async createSubscription(request, context: HandlerContext) {
      const caller = await authenticate(context, scopes.create, adminOnly);
      const check = new RequestCheck();
      const events = eventsOf(check, request.events);
      const description = descriptionOf(check, request.description);
      if (request.rateLimitPerSecond !== undefined) rateLimitOf(check, request.rateLimitPerSecond);
      const url = await checkedUrl(request.url, check);

      const idempotent = idempotentRequest(caller, idempotencyKeyOf(context), "CreateSubscription", toBinary(CreateSubscriptionRequestSchema, request));
      const result = await subscriptions.issuingSecret(idempotent, createdCodec, async (writes) => {
        const id = randomUUID();
        const secret = generateSigningSecret();
        const stored = await writes.insert(
          {
            id,
            orgId: caller.orgId,
            url: url.href,
            events,
            secretSealed: deps.secretBox.seal(secret, id),
            description,
            rateLimitPerSecond: request.rateLimitPerSecond ?? null,
          },
          deps.maxSubscriptionsPerOrg,
        );
        if (stored === "limit-reached") {
          // A quota the caller fixes by deleting, not by waiting: FAILED_PRECONDITION (409), not 429.
          throw new ConnectError(
            `An organization may have at most ${deps.maxSubscriptionsPerOrg} webhook subscriptions; delete one first`,
            Code.FailedPrecondition,
          );
        }
        return create(CreateSubscriptionResponseSchema, { subscription: toSubscription(stored), secret });
      });
      if (result.replayed) context.responseHeader.set(IDEMPOTENT_REPLAYED_HEADER, "true");
      return result.value;
    },

    async listSubscriptions(request, context) {
      const caller = await authenticate(context, scopes.read);
      // No page asked for: every subscription (GET /webhook "returns all", spec 4.4); the
      // per-organization cap bounds the answer.
      if (request.pageSize === 0 && !request.pageToken)
        return { subscriptions: (await subscriptions.list(caller.orgId)).map(toSubscription), nextPageToken: "" };
      const check = new RequestCheck();
      const size = pageSizeOf(check, request.pageSize);
      const after = request.pageToken ? decodePageToken(request.pageToken) : undefined;
      if (request.pageToken && !after) check.add("pageToken is not a token this API returned");
      check.done();
      const page = await subscriptions.listPage(caller.orgId, { size, ...(after ? { after } : {}) });
      return { subscriptions: page.subscriptions.map(toSubscription), nextPageToken: page.next ? encodePageToken(page.next) : "" };
    },

    async deleteSubscription(request, context) {
      const caller = await authenticate(context, scopes.delete, adminOnly);
      const webhookId = uuidFrom(request.webhookId);
      if (!(await subscriptions.delete(caller.orgId, webhookId))) throw notFound("Webhook");
      return { webhookId };
    },

    async enableSubscription(request, context) {
      const caller = await authenticate(context, scopes.create, adminOnly);
      const webhookId = uuidFrom(request.webhookId);
      const enabled = await subscriptions.enable(caller.orgId, webhookId);
      if (!enabled) throw notFound("Webhook");
      return { subscription: toSubscription(enabled) };
    },

    async listDeliveries(request, context) {
      const caller = await authenticate(context, scopes.read);
      const webhookId = uuidFrom(request.webhookId);
      const check = new RequestCheck();
      const size = pageSizeOf(check, request.pageSize);
      const after = request.pageToken ? decodePageToken(request.pageToken) : undefined;
      if (request.pageToken && !after) check.add("pageToken is not a token this API returned");
      const since = dateTimeOf(check, request.since, "since");
      const until = dateTimeOf(check, request.until, "until");
      if (since && until && until <= since) check.add("until must be after since");
      if (request.status !== DeliveryStatus.UNSPECIFIED && !statusNameOf[request.status]) check.add("status is not a delivery status");
      if (request.statusClass !== HttpStatusClass.UNSPECIFIED && !statusClassOf[request.statusClass]) check.add("statusClass is not a status class");
      if (request.meetingId && !MEETING_ID_TEXT.test(request.meetingId)) check.add("meetingId is not a meeting id");
      check.done();
      await subscriptionOf(caller.orgId, webhookId);
      const filter: DeliveryFilter = {
        ...(statusNameOf[request.status] ? { status: statusNameOf[request.status] } : {}),
        ...(statusClassOf[request.statusClass] ? { statusClass: statusClassOf[request.statusClass] } : {}),
        ...(since ? { since } : {}),
        ...(until ? { until } : {}),
        ...(request.meetingId ? { meetingId: request.meetingId } : {}),
      };
      const page = await deliveries.list({ orgId: caller.orgId, subscriptionId: webhookId, pageSize: size, filter, ...(after ? { after } : {}) });
      return { deliveries: page.deliveries.map(toDelivery), nextPageToken: page.next ? encodePageToken(page.next) : "" };
    },

    async updateSubscription(request, context) {
      const caller = await authenticate(context, scopes.update, adminOnly);
      const webhookId = uuidFrom(request.webhookId);
      const changes: SubscriptionChanges = {};
      const check = new RequestCheck();
      if (request.events) changes.events = eventsOf(check, request.events.types);
      if (request.description !== undefined) changes.description = descriptionOf(check, request.description);
      if (request.rateLimit) {
        const perSecond = request.rateLimit.perSecond;
        changes.rateLimitPerSecond = perSecond === undefined ? null : rateLimitOf(check, perSecond);
      }
      if (request.disabled !== undefined) changes.disabled = request.disabled ? { reason: DISABLED_BY_ORGANIZATION } : false;
      // The URL exactly as at registration, SSRF check included.
      if (request.url !== undefined) changes.url = (await checkedUrl(request.url, check)).href;
      else check.done();
      if (Object.keys(changes).length === 0) {
        throw invalidArgument(["nothing to change: set at least one of url, events, description, disabled, rateLimitPerSecond"]);
      }
      const updated = await subscriptions.update(caller.orgId, webhookId, changes);
      if (!updated) throw notFound("Webhook");
      return { subscription: toSubscription(updated) };
    },

    async rotateSecret(request, context) {
      const caller = await authenticate(context, scopes.update, adminOnly);
      const webhookId = uuidFrom(request.webhookId);
      const idempotent = idempotentRequest(caller, idempotencyKeyOf(context), "RotateSecret", toBinary(RotateSecretRequestSchema, request));
      const result = await subscriptions.issuingSecret(idempotent, rotatedCodec, async (writes) => {
        const secret = generateSigningSecret();
        const rotated = await writes.rotateSecret({
          orgId: caller.orgId,
          id: webhookId,
          newSecretSealed: deps.secretBox.seal(secret, webhookId),
          graceMs: deps.rotationGraceMs,
        });
        if (!rotated) throw notFound("Webhook");
        return create(RotateSecretResponseSchema, { subscription: toSubscription(rotated), secret });
      });
      if (result.replayed) context.responseHeader.set(IDEMPOTENT_REPLAYED_HEADER, "true");
      return result.value;
    },

    async recoverDeliveries(request, context) {
      const caller = await authenticate(context, scopes.update, adminOnly);
      const webhookId = uuidFrom(request.webhookId);
      const check = new RequestCheck();
      const window = recoveryWindowOf(check, request.since, request.until, new Date());
      check.done();
      requireEnabled(await subscriptionOf(caller.orgId, webhookId));
      const recovered = await deliveries.recoverFailed({ orgId: caller.orgId, subscriptionId: webhookId, since: window!.since, until: window!.until });
      if (recovered > 0) deps.wakeDispatcher();
      return { webhookId, recovered, since: timestampFromDate(window!.since), until: timestampFromDate(window!.until) };
    },

    async listEventTypes(_request, context) {
      await authenticate(context, scopes.read);
      return { eventTypes: SUBSCRIBABLE_EVENT_TYPES.map((type) => ({ type, description: EVENT_TYPE_DESCRIPTIONS[type] })) };
    },

    async retryDelivery(request, context) {
      const caller = await authenticate(context, scopes.create, adminOnly);
      const webhookId = uuidFrom(request.webhookId);
      const deliveryId = uuidFrom(request.deliveryId, "deliveryId");
      const subscription = await subscriptionOf(caller.orgId, webhookId);
      requireEnabled(subscription);
      if (!(await deliveries.find(caller.orgId, webhookId, deliveryId))) throw notFound("Delivery");
      const scheduled = await deliveries.scheduleRedelivery(caller.orgId, webhookId, deliveryId);
      // Read before waking the dispatcher: the answer is the delivery as scheduled, not a race with the attempt.
      const delivery = toDelivery((await deliveries.find(caller.orgId, webhookId, deliveryId))!);
      if (scheduled) deps.wakeDispatcher();
      return { delivery };
    },

    async sendTestEvent(request, context) {
      const caller = await authenticate(context, scopes.create, adminOnly);
      const webhookId = uuidFrom(request.webhookId);
      const subscription = await subscriptionOf(caller.orgId, webhookId);
      requireEnabled(subscription);
      await consumeTestEvent(webhookId);
      const eventId = randomUUID();
      const deliveryId = randomUUID();
      const body = JSON.stringify(testEventBody(webhookId, caller.orgId));
      // The attempt belongs to this request: its span and log lines name it.
      const event = { id: eventId, orgId: caller.orgId, type: TEST_EVENT_TYPE, body, context: captureEventContext() };
      await deliveries.storeSingle(event, webhookId, deliveryId, deps.pendingCaps);
      // Read before waking the dispatcher: the answer is the delivery as scheduled, not a race with the attempt.
      const stored = await deliveries.find(caller.orgId, webhookId, deliveryId);
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
    description: record.description,
    ...(record.rateLimitPerSecond !== null ? { rateLimitPerSecond: record.rateLimitPerSecond } : {}),
    ...(record.previousSecretExpiresAt ? { previousSecretExpiresAt: timestampFromDate(record.previousSecretExpiresAt) } : {}),
  });
}

const statusNameOf: Partial<Record<DeliveryStatus, DeliveryView["status"]>> = {
  [DeliveryStatus.PENDING]: "pending",
  [DeliveryStatus.SUCCEEDED]: "succeeded",
  [DeliveryStatus.FAILED]: "failed",
  [DeliveryStatus.CANCELLED]: "cancelled",
};

const statusClassOf: Partial<Record<HttpStatusClass, StatusClass>> = {
  [HttpStatusClass.NO_RESPONSE]: "none",
  [HttpStatusClass.SUCCESSFUL]: "2xx",
  [HttpStatusClass.REDIRECTION]: "3xx",
  [HttpStatusClass.CLIENT_ERROR]: "4xx",
  [HttpStatusClass.SERVER_ERROR]: "5xx",
};

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
