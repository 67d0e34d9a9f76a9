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
  /**
   * The context of this event's consumption, to store with the work it causes later (see
   * captureEventContext): on Kafka the consumer span made for this event in the trace it was
   * published in, on the Postgres bus its published trace; with the request id it carried.
   */
  consumptionContext: EventContextHeaders;
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
   * Called with the next events, at most `MAX_EVENTS_PER_BATCH`, each key's in their order (a
   * batch may hold several partitions' events). Their positions are committed only after this
   * resolves, so a crash before that redelivers them all; throwing commits none of them and stops
   * progress on their partitions until a later call with them succeeds. A handler that applies a
   * batch in one transaction therefore applies each event all or nothing, and must tolerate seeing
   * an event again (at least once). It runs in the trace of the batch's first event.
   */
  handleBatch(events: IncomingEvent[]): Promise<void>;
}

/**
 * The most events one `handleBatch` call is given: a backlog (a consumer catching up) is handled
 * in batches of this size, each committed before the next, so one statement never grows without bound.
 */
export const MAX_EVENTS_PER_BATCH = 200;

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
