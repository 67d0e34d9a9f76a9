import { register } from "node:module";
import { createAddHookMessageChannel } from "import-in-the-middle";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { ExpressInstrumentation } from "@opentelemetry/instrumentation-express";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { IORedisInstrumentation } from "@opentelemetry/instrumentation-ioredis";
import { KafkaJsInstrumentation } from "@opentelemetry/instrumentation-kafkajs";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";

/**
 * Starts the OpenTelemetry Node SDK with the instrumentations this system needs. Exporter,
 * endpoint, protocol, sampler, service name and resource come from the standard OTEL_* variables.
 *
 * Our code is ESM, so the instrumented packages are patched through the import-in-the-middle
 * loader hook; it intercepts only the modules an instrumentation asked for, not our own.
 */
export async function startTracing(): Promise<void> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register("import-in-the-middle/hook.mjs", import.meta.url, registerOptions);
  const sdk = new NodeSDK({
    instrumentations: [
      new HttpInstrumentation(),
      new ExpressInstrumentation(),
      // Polling queries (outbox relay, delivery claims) outside any request would each be a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
      new KafkaJsInstrumentation(),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  // Spans still buffered are exported when the event loop empties. No signal handler here: that
  // would change how a process without one of its own (the CLI, migrations) reacts to SIGTERM.
  process.once("beforeExit", () => void sdk.shutdown().catch(() => undefined));
}
