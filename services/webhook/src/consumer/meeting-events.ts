import { captureEventContext, type Logger } from "@svc/platform";
import { type Pool } from "@svc/platform/db";
import { type EventSubscription, type IncomingEvent } from "@svc/platform/events";
import { MeetingEndedSchema } from "@svc/proto/svc/meeting/v1/events_pb";
import { storeEventDeliveries } from "../db/deliveries.ts";
import type { PendingCaps } from "../delivery/pending-caps.ts";
import { decodeMeetingEvent, type DecodedEvent } from "../payloads.ts";

export const MEETING_EVENTS_TOPIC = "meeting.events";
export const CONSUMER_GROUP = "webhook";

/**
 * Turns `meeting.events` into deliveries: one per enabled subscription of the event's organization
 * that wants the event's type. The handler resolves only once the deliveries are stored, and the
 * bus commits the event's position only after that, so a crash in between redelivers the event;
 * storing it again creates nothing (unique on event and subscription).
 */
export function meetingEventsSubscription(options: {
  pool: Pool;
  logger: Logger;
  pendingCaps: PendingCaps;
  onDeliveriesStored: () => void;
}): EventSubscription {
  return {
    topic: MEETING_EVENTS_TOPIC,
    groupId: CONSUMER_GROUP,
    async handle(event: IncomingEvent) {
      let decoded: DecodedEvent | undefined;
      try {
        // Events published before event types travelled with them are all MeetingEnded.
        decoded = decodeMeetingEvent(event.type || MeetingEndedSchema.typeName, event.value);
      } catch (error) {
        // A malformed event can never succeed; retrying it would stop the partition for good.
        options.logger.error({ err: error, eventId: event.id, key: event.key }, "skipping an undecodable meeting event");
        return;
      }
      if (!decoded) return; // a meeting event that is not delivered as a webhook
      const id = decoded.eventId || event.id;
      if (!id || !decoded.orgId) {
        options.logger.error({ eventId: event.id, key: event.key }, "skipping a meeting event without an event id or organization");
        return;
      }
      const created = await storeEventDeliveries(
        options.pool,
        // The consumer's own context (the bus made the event's trace and request current), so
        // the attempts are children of this consumption.
        { id, orgId: decoded.orgId, type: decoded.body.type, body: JSON.stringify(decoded.body), context: captureEventContext() },
        options.pendingCaps,
      );
      if (created > 0) options.onDeliveriesStored();
    },
  };
}
