import type { Logger } from "../logger.ts";
import type { EventBus } from "./event-bus.ts";
import { createKafkaEventBus } from "./kafka-event-bus.ts";
import { kafkaSecurityOptions, type KafkaSecuritySettings } from "./kafka-security.ts";
import { createPostgresEventBus } from "./postgres-event-bus.ts";

/** The configuration that chooses the transport (a subset of every service's base environment). */
export interface EventBusConfig extends KafkaSecuritySettings {
  DATABASE_URL: string;
  KAFKA_BROKERS?: string | undefined;
  KAFKA_TOPIC_PREFIX: string;
}

/**
 * Kafka when KAFKA_BROKERS is set, otherwise the durable Postgres-backed bus (schema `event_bus`
 * in DATABASE_URL), so `npm start` works with nothing but a database. Same interface and the same
 * at-least-once contract either way. `clientId` names this process to the broker.
 */
export async function createEventBus(config: EventBusConfig, logger: Logger, clientId = "svc"): Promise<EventBus> {
  const busLogger = logger.child({ component: "event-bus" });
  if (config.KAFKA_BROKERS) {
    const security = kafkaSecurityOptions(config);
    busLogger.info({ transport: "kafka", tls: Boolean(security.ssl), sasl: security.sasl?.mechanism ?? "none" }, "event bus: Kafka");
    return createKafkaEventBus({
      ...security,
      brokers: config.KAFKA_BROKERS.split(","),
      topicPrefix: config.KAFKA_TOPIC_PREFIX,
      clientId,
      logger: busLogger,
    });
  }
  busLogger.info({ transport: "postgres" }, "event bus: Postgres (KAFKA_BROKERS unset)");
  return createPostgresEventBus({ databaseUrl: config.DATABASE_URL, topicPrefix: config.KAFKA_TOPIC_PREFIX, logger: busLogger });
}
