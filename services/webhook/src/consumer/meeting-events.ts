import { type Logger } from "@svc/platform";
import { type Pool } from "@svc/platform/db";
import { type EventSubscription, type IncomingEvent } from "@svc/platform/events";
import { MeetingEndedSchema } from "@svc/proto/svc/meeting/v1/events_pb";
import { storeEventDeliveries } from "../db/deliveries.ts";
import type { PendingCaps } from "../delivery/pending-caps.ts";
import { decodeMeetingEvent, type DecodedEvent } from "../payloads.ts";
import type { StoredEvent } from "../webhook-stores.ts";

export const MEETING_EVENTS_TOPIC = "meeting.events";
export const CONSUMER_GROUP = "webhook";

/**
 * Turns `meeting.events` into deliveries: one per enabled subscription of the event's organization
 * that wants the event's type. A batch of events is stored in one statement, and the handler
 * resolves only once it has committed; the bus commits the events' positions only after that, so
 * a crash in between redelivers them, and storing them again creates nothing (unique on event and
 * subscription). Events that can never be stored (undecodable, or without an id or organization)
 * are skipped, logged, and their positions committed with the rest.
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
    async handleBatch(events: IncomingEvent[]) {
      const stored = events.flatMap((event) => {
        const storable = storableEvent(event, options.logger);
        return storable ? [storable] : [];
      });
      const created = await storeEventDeliveries(options.pool, stored, options.pendingCaps);
      if (created > 0) options.onDeliveriesStored();
    },
  };
}

/** The event as stored, with the exact body its deliveries send; undefined when it is not delivered as a webhook or can never be. */
function storableEvent(event: IncomingEvent, logger: Logger): StoredEvent | undefined {
  let decoded: DecodedEvent | undefined;
  try {
    // Events published before event types travelled with them are all MeetingEnded.
    decoded = decodeMeetingEvent(event.type || MeetingEndedSchema.typeName, event.value);
  } catch (error) {
    // A malformed event can never succeed; retrying it would stop the partition for good.
    logger.error({ err: error, eventId: event.id, key: event.key }, "skipping an undecodable meeting event");
    return undefined;
  }
  if (!decoded) return undefined; // a meeting event that is not delivered as a webhook
  const id = decoded.eventId || event.id;
  if (!id || !decoded.orgId) {
    logger.error({ eventId: event.id, key: event.key }, "skipping a meeting event without an event id or organization");
    return undefined;
  }
  // The context of the event's own consumption, so its attempts are children of it.
  return { id, orgId: decoded.orgId, type: decoded.body.type, body: JSON.stringify(decoded.body), context: event.consumptionContext };
}
