import type { EventBus, EventSubscription } from "../events/event-bus.ts";
import type { Logger } from "../logger.ts";
import { gaugeIn, type Registry } from "./metrics-registry.ts";
import { SCRAPE_READ_TIMEOUT_MS, withTimeout } from "./scrape-gauge.ts";

/**
 * event_consumer_lag_messages{topic, consumer_group}: events on the bus the process's consumer
 * groups have not yet committed, read from the bus at scrape time (Kafka: the group's committed
 * offsets against the partitions' high watermarks; Postgres bus: events after the group's
 * positions). Topic and group are the logical names, without KAFKA_TOPIC_PREFIX. A reading that
 * fails or times out is NaN.
 */
export function consumerLagGauge(
  registry: Registry | undefined,
  bus: EventBus,
  subscriptions: Pick<EventSubscription, "topic" | "groupId">[],
  logger: Logger,
): void {
  if (!registry) return;
  gaugeIn(
    registry,
    "event_consumer_lag_messages",
    "Events a consumer group has not yet consumed, summed over the topic's partitions.",
    ["topic", "consumer_group"],
    async (gauge) => {
      await Promise.all(
        subscriptions.map(async (subscription) => {
          const lag = await withTimeout(bus.consumerLag(subscription), SCRAPE_READ_TIMEOUT_MS).catch((error: unknown) => {
            logger.warn({ err: error, topic: subscription.topic, groupId: subscription.groupId }, "reading consumer lag failed");
            return Number.NaN;
          });
          gauge.set({ topic: subscription.topic, consumer_group: subscription.groupId }, lag);
        }),
      );
    },
  );
}
