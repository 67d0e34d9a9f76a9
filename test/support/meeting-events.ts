import { fromBinary } from "@bufbuild/protobuf";
import { Kafka, logLevel } from "kafkajs";
import { MeetingEndedSchema, type MeetingEnded } from "@svc/proto/svc/meeting/v1/events_pb";
import { infra, uniqueName } from "./infra.ts";
import { waitFor } from "./wait.ts";

export interface ReceivedEvent {
  key: string;
  headers: Record<string, string>;
  event: MeetingEnded;
}

export interface MeetingEventsConsumer {
  received: ReceivedEvent[];
  /**
   * Resolves once every message on the topic at the time of the call has been received (each
   * partition consumed up to its end offset). After the producers are done (the outbox drained),
   * `received` is then complete: the marker that replaces waiting "long enough" for a duplicate.
   */
  readAll(timeoutMs?: number): Promise<void>;
  stop: () => Promise<void>;
}

/**
 * A plain kafkajs consumer (its own group, from the beginning) on `<topicPrefix>meeting.events`
 * (a stack's prefix is `stack.env.KAFKA_TOPIC_PREFIX`), decoding each value as the protobuf
 * MeetingEnded: what any other team's consumer sees.
 */
export async function consumeMeetingEvents(topicPrefix: string): Promise<MeetingEventsConsumer> {
  const topic = `${topicPrefix}meeting.events`;
  const kafka = new Kafka({ clientId: "meeting-events-test", brokers: infra.kafkaBrokers().split(","), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  // Same shape as the bus would create it; a no-op when the service already did.
  await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true });
  const received: ReceivedEvent[] = [];
  /** The next offset to read, by partition. */
  const consumedUpTo = new Map<number, bigint>();
  const consumer = kafka.consumer({ groupId: uniqueName("test-consumer") });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      received.push({
        key: message.key?.toString() ?? "",
        headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)])),
        event: fromBinary(MeetingEndedSchema, message.value ?? new Uint8Array()),
      });
      consumedUpTo.set(partition, BigInt(message.offset) + 1n);
    },
  });
  await joined;
  const readAll = async (timeoutMs = 30_000) => {
    const ends = await admin.fetchTopicOffsets(topic);
    const done = () => ends.every(({ partition, high }) => (consumedUpTo.get(partition) ?? 0n) >= BigInt(high));
    await waitFor(done, timeoutMs, `the consumer did not read ${topic} to its end`);
  };
  return {
    received,
    readAll,
    stop: async () => {
      await consumer.disconnect();
      await admin.disconnect();
    },
  };
}
