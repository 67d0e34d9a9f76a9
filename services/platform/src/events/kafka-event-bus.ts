import { Kafka, logLevel, type Admin, type Consumer, type IHeaders, type KafkaConfig, type KafkaMessage, type LogEntry, type Producer } from "kafkajs";
import { createBatcher } from "../batcher.ts";
import type { Logger } from "../logger.ts";
import { withEventTrace, type EventContextHeaders } from "../telemetry/event-context.ts";
import { handleReceivedBatch, type ReceivedEvent } from "./batch-consumption.ts";
import {
  eventContentType,
  eventTypeFromContentType,
  MAX_EVENTS_PER_BATCH,
  type EventBus,
  type EventPublisher,
  type EventSubscriber,
  type EventSubscription,
  type OutgoingEvent,
} from "./event-bus.ts";

export interface KafkaEventBusOptions extends Pick<KafkaConfig, "ssl" | "sasl"> {
  brokers: string[];
  /** Prepended to every topic and consumer group (KAFKA_TOPIC_PREFIX). */
  topicPrefix: string;
  clientId: string;
  logger: Logger;
  /** Partitions of a topic this bus creates; an existing topic keeps its own. */
  partitions?: number;
}

/** Partitions for topics created on first use: enough for a few consumers to share the work. */
const DEFAULT_PARTITIONS = 4;

/**
 * Producer retries are bounded (kafkajs would retry an idempotent send forever), so a publish
 * during a broker outage fails after a few seconds: the caller (the outbox relay) releases its
 * rows and backs off instead of holding them for the whole outage.
 */
const PRODUCER_RETRY = { retries: 6, initialRetryTime: 300, maxRetryTime: 5_000 };

/** Consumer retries before kafkajs restarts the consumer, which then resumes from the committed offset. */
const CONSUMER_RETRY = { retries: 8, initialRetryTime: 300, maxRetryTime: 10_000 };

/**
 * How long the broker holds an empty fetch open. A consumer's disconnect waits for its fetch in
 * flight, so kafkajs's default (5 s) made every stop of the webhook service take 4-5 s (a rolling
 * update, each test stack). A message still returns the fetch at once; an idle consumer now asks
 * once a second instead of every five.
 */
const CONSUMER_MAX_WAIT_MS = 1_000;

export function createKafkaEventBus(options: KafkaEventBusOptions): EventBus {
  const { topicPrefix, logger } = options;
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    ...(options.ssl ? { ssl: options.ssl } : {}),
    ...(options.sasl ? { sasl: options.sasl } : {}),
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator(logger.child({ component: "kafkajs" })),
  });
  const partitions = options.partitions ?? DEFAULT_PARTITIONS;
  const topics = createTopicEnsurer(kafka, partitions);
  const closers = new Set<() => Promise<void>>();

  return {
    transport: "kafka",
    publisher() {
      const publisher = createKafkaPublisher(kafka, topics, topicPrefix);
      closers.add(publisher.close);
      return publisher;
    },
    subscriber() {
      const subscriber = createKafkaSubscriber(kafka, topics, topicPrefix, partitions, logger);
      closers.add(subscriber.close);
      return subscriber;
    },
    async consumerLag(subscription) {
      const topic = topicPrefix + subscription.topic;
      const admin = await topics.admin();
      const [ends, [committed]] = await Promise.all([
        admin.fetchTopicOffsets(topic),
        admin.fetchOffsets({ groupId: topicPrefix + subscription.groupId, topics: [topic] }),
      ]);
      const committedOf = new Map((committed?.partitions ?? []).map((partition) => [partition.partition, Number(partition.offset)]));
      // A partition the group never committed on counts from its low watermark (the group reads from the beginning).
      return ends.reduce((lag, end) => {
        const position = committedOf.get(end.partition) ?? -1;
        return lag + Math.max(0, Number(end.high) - (position < 0 ? Number(end.low) : position));
      }, 0);
    },
    async close() {
      await Promise.allSettled([...closers].map((close) => close()));
      closers.clear();
      await topics.close();
    },
  };
}

function createKafkaPublisher(kafka: Kafka, topics: TopicEnsurer, topicPrefix: string): EventPublisher {
  // One idempotent producer (acks from all in-sync replicas): the broker drops the duplicates its
  // own retries would otherwise write.
  const producer: Producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, retry: PRODUCER_RETRY });
  let connected: Promise<void> | undefined;
  const connect = () => {
    // Connect lazily and again after a failed attempt: the broker may be down when we start.
    connected ??= producer.connect().catch((error: unknown) => {
      connected = undefined;
      throw error;
    });
    return connected;
  };
  return {
    async publish(events: OutgoingEvent[]) {
      if (events.length === 0) return;
      await connect();
      for (const topic of new Set(events.map((event) => topicPrefix + event.topic))) await topics.ensure(topic);
      // Each run of events from one trace is sent inside that trace, so the Kafka instrumentation's
      // producer span (and the traceparent it writes into the headers) continues it. Without
      // tracing no event has a traceparent: one run, one batch.
      for (const run of runsOfOneTrace(events)) {
        const byTopic = Map.groupBy(run, (event) => topicPrefix + event.topic);
        const send = () =>
          producer.sendBatch({
            acks: -1,
            topicMessages: [...byTopic].map(([topic, batch]) => ({
              topic,
              messages: batch.map((event) => ({
                key: event.key,
                value: Buffer.from(event.value),
                headers: { ...event.context, "event-id": event.id, "content-type": eventContentType(event.type) },
              })),
            })),
          });
        await withEventTrace(run[0]!.context, send);
      }
    },
    async close() {
      if (connected) await producer.disconnect();
      connected = undefined;
    },
  };
}

function createKafkaSubscriber(kafka: Kafka, topics: TopicEnsurer, topicPrefix: string, partitions: number, logger: Logger): EventSubscriber {
  const consumers: Consumer[] = [];
  return {
    async start(subscription: EventSubscription) {
      const topic = topicPrefix + subscription.topic;
      const groupId = topicPrefix + subscription.groupId;
      await topics.ensure(topic);
      const consumer = kafka.consumer({ groupId, retry: CONSUMER_RETRY, maxWaitTimeInMs: CONSUMER_MAX_WAIT_MS });
      consumers.push(consumer);
      consumer.on(consumer.events.CRASH, ({ payload }) =>
        logger.warn({ groupId, topic, err: payload.error, restart: payload.restart }, "event consumer crashed"),
      );
      const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
      await consumer.connect();
      // A new group starts from the beginning so it sees events published before it first ran.
      await consumer.subscribe({ topic, fromBeginning: true });
      // The batches of one fetch (one per partition with new events, handled concurrently) go
      // to the subscription together, in one call; each partition's next batch waits for it.
      const together = createBatcher<ReceivedEvent[]>((chunks) => handleReceivedBatch(subscription, chunks.flat(), { consumerSpans: true }), partitions);
      const chunkSize = Math.max(1, Math.floor(MAX_EVENTS_PER_BATCH / partitions));
      await consumer.run({
        // Each assigned partition is read by its own loop, its next batch only after the last
        // one was handled: order holds per key (partition).
        partitionsConsumedConcurrently: partitions,
        // Offsets are resolved here, after the subscription has handled them: at least once.
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          for (let start = 0; start < batch.messages.length; start += chunkSize) {
            // Stopping, or the partition was taken away or sought: what is unresolved is read again.
            if (!isRunning() || isStale()) return;
            const messages = batch.messages.slice(start, start + chunkSize);
            try {
              await together.add(messages.map((message) => receivedEvent(subscription.topic, message)));
            } catch (error) {
              logger.warn(
                { err: error, topic, partition: batch.partition, offset: messages[0]!.offset, events: messages.length },
                "event handler failed; will retry",
              );
              // kafkajs gives up at once on errors it deems programming errors (TypeError and the
              // like) and would stop the consumer for good; a plain Error makes it retry instead.
              throw new Error(`event handler failed: ${error instanceof Error ? error.message : String(error)}`);
            }
            resolveOffset(messages.at(-1)!.offset);
            await heartbeat();
          }
        },
      });
      await joined;
    },
    async close() {
      await Promise.allSettled(consumers.map((consumer) => consumer.disconnect()));
      consumers.length = 0;
    },
  };
}

function receivedEvent(topic: string, message: KafkaMessage): ReceivedEvent {
  return {
    topic,
    key: message.key?.toString() ?? "",
    id: message.headers?.["event-id"]?.toString() ?? "",
    type: eventTypeFromContentType(message.headers?.["content-type"]?.toString()),
    value: new Uint8Array(message.value ?? Buffer.alloc(0)),
    context: stringHeaders(message.headers),
  };
}

/** Consecutive events with the same traceparent, in order (so each key keeps its order). */
function runsOfOneTrace(events: OutgoingEvent[]): OutgoingEvent[][] {
  const runs: OutgoingEvent[][] = [];
  for (const event of events) {
    const last = runs.at(-1);
    if (last && last[0]!.context?.traceparent === event.context?.traceparent) last.push(event);
    else runs.push([event]);
  }
  return runs;
}

function stringHeaders(headers: IHeaders | undefined): EventContextHeaders {
  const result: EventContextHeaders = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) result[name] = first.toString();
  }
  return result;
}

interface TopicEnsurer {
  ensure(topic: string): Promise<void>;
  /** The connected admin client it uses (also for reading offsets). */
  admin(): Promise<Admin>;
  close(): Promise<void>;
}

/** Creates a topic on first use (no-op when it exists), so no deployment step has to. */
function createTopicEnsurer(kafka: Kafka, partitions: number): TopicEnsurer {
  let admin: Admin | undefined;
  let connected: Promise<void> | undefined;
  const known = new Set<string>();
  const connectedAdmin = async () => {
    admin ??= kafka.admin();
    const client = admin;
    connected ??= client.connect().catch((error: unknown) => {
      connected = undefined;
      throw error;
    });
    await connected;
    return client;
  };
  return {
    admin: connectedAdmin,
    async ensure(topic) {
      if (known.has(topic)) return;
      const client = await connectedAdmin();
      await client.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
      known.add(topic);
    },
    async close() {
      if (admin && connected) await admin.disconnect().catch(() => undefined);
      connected = undefined;
    },
  };
}

/**
 * Routes kafkajs's own logging (warn and error only) into our pino logger at warn: during a broker
 * outage it reports every failed connection, and our own code already logs what it does about
 * it. The warning about bounded retries of the idempotent producer is dropped: bounding them is
 * deliberate (see PRODUCER_RETRY), and consumers deduplicate on event id anyway.
 */
function kafkaLogCreator(logger: Logger) {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, timestamp: _timestamp, logger: _name, ...extra } = log;
      if (message.startsWith("Limiting retries for the idempotent producer")) return;
      if (level <= logLevel.WARN) logger.warn({ namespace, ...extra }, message);
    };
}
