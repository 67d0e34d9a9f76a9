import { fromBinary } from "@bufbuild/protobuf";
import { Kafka, logLevel } from "kafkajs";
import { MeetingEndedSchema, type MeetingEnded } from "@svc/proto/svc/meeting/v1/events_pb";
import { infra, uniqueName } from "./infra.ts";

export interface ReceivedEvent {
  key: string;
  headers: Record<string, string>;
  event: MeetingEnded;
}

/**
 * A plain kafkajs consumer (its own group, from the beginning) on `<topicPrefix>meeting.events`
 * (a stack's prefix is `stack.env.KAFKA_TOPIC_PREFIX`), decoding each value as the protobuf
 * MeetingEnded: what any other team's consumer sees.
 */
export async function consumeMeetingEvents(topicPrefix: string): Promise<{ received: ReceivedEvent[]; stop: () => Promise<void> }> {
  const topic = `${topicPrefix}meeting.events`;
  const kafka = new Kafka({ clientId: "meeting-events-test", brokers: infra.kafkaBrokers().split(","), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  // Same shape as the bus would create it; a no-op when the service already did.
  await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true });
  await admin.disconnect();
  const received: ReceivedEvent[] = [];
  const consumer = kafka.consumer({ groupId: uniqueName("test-consumer") });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.run({
    eachMessage: async ({ message }) => {
      received.push({
        key: message.key?.toString() ?? "",
        headers: Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)])),
        event: fromBinary(MeetingEndedSchema, message.value ?? new Uint8Array()),
      });
    },
  });
  await joined;
  return { received, stop: () => consumer.disconnect() };
}
