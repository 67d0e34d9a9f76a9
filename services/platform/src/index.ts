// The shared platform library: every export here is used by more than one service.
export * from "./config.ts";
export * from "./logger.ts";
export * from "./lifecycle.ts";
export * from "./errors.ts";
export * from "./caller.ts";
export * from "./db/pool.ts";
export * from "./db/migrate.ts";
export * from "./grpc/server.ts";
export * from "./events/event-bus.ts";
export * from "./events/create-event-bus.ts";
export * from "./events/kafka-event-bus.ts";
export * from "./events/postgres-event-bus.ts";
export * from "./credentials/verified-credential.ts";
export * from "./credentials/token-hash.ts";
export * from "./credentials/credential-cache.ts";
export * from "./redis.ts";
export * from "./grpc/internal-transport.ts";
