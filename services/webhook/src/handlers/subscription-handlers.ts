import { randomUUID } from "node:crypto";
import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, RequestCheck, requireUuid, notFound, IDEMPOTENT_REPLAYED_HEADER, idempotencyKeyOf } from "@svc/platform";
import { idempotentRequest } from "@svc/platform/db";
import {
  CreateSubscriptionRequestSchema,
  CreateSubscriptionResponseSchema,
  RotateSecretRequestSchema,
  RotateSecretResponseSchema,
  type WebhookService,
} from "@svc/proto/svc/webhook/v1/webhook_pb";
import type { SubscriptionChanges, SubscriptionRecord, SubscriptionStore } from "../webhook-stores.ts";
import { checkTargetAddresses, urlProblems } from "../delivery/target-policy.ts";
import type { SecretBox } from "../signing/secret-box.ts";
import { generateSigningSecret } from "../signing/signing-secret.ts";
import { decodePageToken, descriptionOf, encodePageToken, eventsOf, pageSizeOf, rateLimitOf } from "../api/request-rules.ts";
import { adminOnly, scopes, type WebhookServiceDependencies } from "./handler-context.ts";
import { toSubscription } from "./webhook-wire.ts";

/** Why a subscription is disabled when its organization disables it (PATCH disabled: true). */
export const DISABLED_BY_ORGANIZATION = "disabled by the organization";

/** Associated data of sealed idempotent replays, so they cannot be swapped with sealed signing secrets. */
const REPLAY_BINDING = "idempotent-replay:CreateSubscription";
const ROTATION_REPLAY_BINDING = "idempotent-replay:RotateSecret";

/** The caller's live subscription, or NOT_FOUND (another organization's is as unknown as a missing one). */
export async function subscriptionOf(subscriptions: SubscriptionStore, orgId: string, webhookId: string): Promise<SubscriptionRecord> {
  const subscription = await subscriptions.find(orgId, webhookId);
  if (!subscription) throw notFound("Webhook");
  return subscription;
}

/** FAILED_PRECONDITION for a disabled subscription: nothing is sent to it until it is enabled. */
export function requireEnabled(subscription: SubscriptionRecord): void {
  if (subscription.disabledAt) {
    throw new ConnectError(`Webhook is disabled (${subscription.disabledReason}); enable it first`, Code.FailedPrecondition);
  }
}

/** An answer that holds a signing secret, kept for idempotent replays only encrypted (bound to its operation). */
function sealedReplayCodec<Desc extends DescMessage>(secretBox: SecretBox, binding: string, schema: Desc) {
  return {
    encode: (response: MessageShape<Desc>) => secretBox.seal(Buffer.from(toBinary(schema, response)).toString("base64"), binding),
    decode: (stored: Uint8Array) => fromBinary(schema, Buffer.from(secretBox.open(Buffer.from(stored), binding), "base64")),
  };
}

type SubscriptionHandlers = Pick<
  ServiceImpl<typeof WebhookService>,
  "createSubscription" | "listSubscriptions" | "deleteSubscription" | "enableSubscription" | "updateSubscription" | "rotateSecret"
>;

/** Registering, listing, changing and deleting an organization's subscriptions, and rotating their secrets. */
export function subscriptionHandlers(deps: WebhookServiceDependencies): SubscriptionHandlers {
  const { subscriptions, authenticate } = deps;
  const createdCodec = sealedReplayCodec(deps.secretBox, REPLAY_BINDING, CreateSubscriptionResponseSchema);
  const rotatedCodec = sealedReplayCodec(deps.secretBox, ROTATION_REPLAY_BINDING, RotateSecretResponseSchema);

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
      const webhookId = requireUuid("webhookId", request.webhookId);
      if (!(await subscriptions.delete(caller.orgId, webhookId))) throw notFound("Webhook");
      return { webhookId };
    },

    async enableSubscription(request, context) {
      const caller = await authenticate(context, scopes.create, adminOnly);
      const webhookId = requireUuid("webhookId", request.webhookId);
      const enabled = await subscriptions.enable(caller.orgId, webhookId);
      if (!enabled) throw notFound("Webhook");
      return { subscription: toSubscription(enabled) };
    },

    async updateSubscription(request, context) {
      const caller = await authenticate(context, scopes.update, adminOnly);
      const webhookId = requireUuid("webhookId", request.webhookId);
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
      const webhookId = requireUuid("webhookId", request.webhookId);
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
  };
}
