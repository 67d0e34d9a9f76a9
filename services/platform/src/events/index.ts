// @svc/platform/events: the event bus (Kafka, or Postgres in embedded mode) and its outbox. Never
// imported by the gateway (eslint.config.js): the gateway publishes nothing.
export * from "./event-bus.ts";
export * from "./create-event-bus.ts";
export * from "./kafka-event-bus.ts";
export * from "./kafka-security.ts";
export * from "./postgres-event-bus.ts";
