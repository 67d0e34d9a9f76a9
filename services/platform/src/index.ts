// The shared platform library's core: every export here is used by more than one process, and none
// of it reaches Postgres or Kafka. The other entries, by concern: @svc/platform/db (Postgres),
// /events (the event bus), /grpc (serving and calling services), /service (a service process's
// start: config, migrations, server, shutdown), /contract (the API's rules), /telemetry.
export * from "./config.ts";
export * from "./logger.ts";
export * from "./lifecycle.ts";
export * from "./shutdown-drain.ts";
export * from "./errors.ts";
export * from "./request-check.ts";
export * from "./html.ts";
export * from "./idempotency-key.ts";
export * from "./caller.ts";
export * from "./credentials/verified-credential.ts";
export * from "./credentials/token-hash.ts";
export * from "./credentials/bearer-token.ts";
export * from "./credentials/credential-cache.ts";
export * from "./credentials/credential-cache-key.ts";
export * from "./development-defaults.ts";
export * from "./redis.ts";
export * from "./rate-limiter.ts";
export * from "./client-address.ts";
export * from "./retry-backoff.ts";
export * from "./batcher.ts";
export * from "./eventually.ts";
export * from "./periodic-task.ts";
export * from "./telemetry/request-context.ts";
export * from "./telemetry/tracing-config.ts";
export * from "./process-launch.ts";
export * from "./telemetry/event-context.ts";
export * from "./telemetry/trace-boundaries.ts";
