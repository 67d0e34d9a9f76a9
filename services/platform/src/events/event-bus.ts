import type { EventContextHeaders } from "../telemetry/event-context.ts";

/**
 * The one interface through which services exchange domain events, with two implementations
 * chosen by configuration: Kafka (KAFKA_BROKERS set) and a durable Postgres-backed bus (the
 * embedded default). Both are at least once: a consumer may see an event again after a crash,
 * so consumers deduplicate on the event id.
 */
export interface OutgoingEvent {
  /** Logical topic, for example "meeting.events"; implementations add KAFKA_TOPIC_PREFIX. */
  topic: string;
  /** Partitioning key: events with the same key keep their order. */
  key: string;
  /** Unique event id, also sent as the `event-id` header. */
  id: string;
  /** Protobuf-encoded payload. */
  value: Uint8Array;
  /** The protobuf message type name, sent as the `content-type` header ("application/x-protobuf; messageType=..."). */
  type: string;
  /** The request and trace that caused the event (see captureEventContext), sent as headers. */
  context?: EventContextHeaders;
}

export interface IncomingEvent {
  topic: string;
  key: string;
  id: string;
  value: Uint8Array;
  type: string;
  /** The context the event was published with; empty when it carried none. */
  context: EventContextHeaders;
}

export interface EventPublisher {
  /** Resolves once every event is durably accepted by the transport; rejects otherwise. */
  publish(events: OutgoingEvent[]): Promise<void>;
  close(): Promise<void>;
}

export interface EventSubscription {
  topic: string;
  /** Consumers in one group share the work; each group sees every event. */
  groupId: string;
  /**
   * Called for each event. The event's position is committed only after this resolves, so a
   * crash before that redelivers it. Throwing stops progress on that partition until it succeeds.
   */
  handle(event: IncomingEvent): Promise<void>;
}

export interface EventSubscriber {
  /** Starts consuming in the background; resolves once the subscription is running. */
  start(subscription: EventSubscription): Promise<void>;
  close(): Promise<void>;
}

/**
 * A configured transport: `createEventBus` returns the Kafka one when KAFKA_BROKERS is set and the
 * Postgres-backed one otherwise. Publishers and subscribers made from it are closed by `close()`.
 */
export interface EventBus {
  readonly transport: "kafka" | "postgres";
  publisher(): EventPublisher;
  subscriber(): EventSubscriber;
  /** Events on the topic the group has not yet consumed (committed), summed over partitions. */
  consumerLag(subscription: Pick<EventSubscription, "topic" | "groupId">): Promise<number>;
  close(): Promise<void>;
}

/** The `content-type` header value that carries an event's protobuf message type. */
export const eventContentType = (type: string) => `application/x-protobuf; messageType=${type}`;

/** The message type from a `content-type` header written by `eventContentType`; "" when absent. */
export function eventTypeFromContentType(contentType: string | undefined): string {
  return /messageType=([A-Za-z0-9_.]+)/.exec(contentType ?? "")?.[1] ?? "";
}
