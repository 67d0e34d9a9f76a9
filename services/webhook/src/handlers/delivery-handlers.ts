import { randomUUID } from "node:crypto";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { captureEventContext, RequestCheck, requireUuid, notFound } from "@svc/platform";
import { errorMetadata, MEETING_ID_TEXT } from "@svc/platform/contract";
import { DeliveryStatus, HttpStatusClass, type WebhookService } from "@svc/proto/svc/webhook/v1/webhook_pb";
import type { DeliveryFilter } from "../webhook-stores.ts";
import { EVENT_TYPE_DESCRIPTIONS, SUBSCRIBABLE_EVENT_TYPES, TEST_EVENT_TYPE } from "../event-types.ts";
import { testEventBody } from "../payloads.ts";
import { dateTimeOf, decodePageToken, encodePageToken, pageSizeOf, recoveryWindowOf } from "../api/request-rules.ts";
import { requireEnabled, subscriptionOf } from "./subscription-handlers.ts";
import { adminOnly, scopes, type WebhookServiceDependencies } from "./handler-context.ts";
import { deliveryStatusWords, statusClassOf, toDelivery } from "./webhook-wire.ts";

type DeliveryHandlers = Pick<ServiceImpl<typeof WebhookService>, "listDeliveries" | "recoverDeliveries" | "retryDelivery" | "sendTestEvent" | "listEventTypes">;

/** The delivery log of a subscription, and what an organization does with it: recover, redeliver, test. */
export function deliveryHandlers(deps: WebhookServiceDependencies): DeliveryHandlers {
  const { subscriptions, deliveries, authenticate } = deps;

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

  return {
    async listDeliveries(request, context) {
      const caller = await authenticate(context, scopes.read);
      const webhookId = requireUuid("webhookId", request.webhookId);
      const check = new RequestCheck();
      const size = pageSizeOf(check, request.pageSize);
      const after = request.pageToken ? decodePageToken(request.pageToken) : undefined;
      if (request.pageToken && !after) check.add("pageToken is not a token this API returned");
      const since = dateTimeOf(check, request.since, "since");
      const until = dateTimeOf(check, request.until, "until");
      if (since && until && until <= since) check.add("until must be after since");
      const status = deliveryStatusWords.wordOf(request.status);
      const statusClass = statusClassOf[request.statusClass];
      if (request.status !== DeliveryStatus.UNSPECIFIED && !status) check.add("status is not a delivery status");
      if (request.statusClass !== HttpStatusClass.UNSPECIFIED && !statusClass) check.add("statusClass is not a status class");
      if (request.meetingId && !MEETING_ID_TEXT.test(request.meetingId)) check.add("meetingId is not a meeting id");
      check.done();
      await subscriptionOf(subscriptions, caller.orgId, webhookId);
      const filter: DeliveryFilter = {
        ...(status ? { status } : {}),
        ...(statusClass ? { statusClass } : {}),
        ...(since ? { since } : {}),
        ...(until ? { until } : {}),
        ...(request.meetingId ? { meetingId: request.meetingId } : {}),
      };
      const page = await deliveries.list({ orgId: caller.orgId, subscriptionId: webhookId, pageSize: size, filter, ...(after ? { after } : {}) });
      return { deliveries: page.deliveries.map(toDelivery), nextPageToken: page.next ? encodePageToken(page.next) : "" };
    },

    async recoverDeliveries(request, context) {
      const caller = await authenticate(context, scopes.update, adminOnly);
      const webhookId = requireUuid("webhookId", request.webhookId);
      const check = new RequestCheck();
      const window = recoveryWindowOf(check, request.since, request.until, new Date());
      check.done();
      requireEnabled(await subscriptionOf(subscriptions, caller.orgId, webhookId));
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
      const webhookId = requireUuid("webhookId", request.webhookId);
      const deliveryId = requireUuid("deliveryId", request.deliveryId);
      requireEnabled(await subscriptionOf(subscriptions, caller.orgId, webhookId));
      if (!(await deliveries.find(caller.orgId, webhookId, deliveryId))) throw notFound("Delivery");
      const scheduled = await deliveries.scheduleRedelivery(caller.orgId, webhookId, deliveryId);
      // Read before waking the dispatcher: the answer is the delivery as scheduled, not a race with the attempt.
      const delivery = toDelivery((await deliveries.find(caller.orgId, webhookId, deliveryId))!);
      if (scheduled) deps.wakeDispatcher();
      return { delivery };
    },

    async sendTestEvent(request, context) {
      const caller = await authenticate(context, scopes.create, adminOnly);
      const webhookId = requireUuid("webhookId", request.webhookId);
      requireEnabled(await subscriptionOf(subscriptions, caller.orgId, webhookId));
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
