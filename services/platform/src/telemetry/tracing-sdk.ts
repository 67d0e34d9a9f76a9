import { register } from "node:module";
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as OtlpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { ExpressInstrumentation } from "@opentelemetry/instrumentation-express";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { IORedisInstrumentation } from "@opentelemetry/instrumentation-ioredis";
import { KafkaJsInstrumentation } from "@opentelemetry/instrumentation-kafkajs";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { defaultResource, detectResources, envDetector, hostDetector, processDetector } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { createAddHookMessageChannel } from "import-in-the-middle";
import { samplerFromEnv } from "./tracing-sampler.ts";
import { boundedPropagator, markUntrustedInbound, redactQueryStrings } from "./trace-boundaries.ts";

/**
 * Starts tracing: a tracer provider exporting over OTLP/HTTP, W3C trace context and baggage
 * propagation between our own processes (never from a plain-HTTP caller, never to a webhook
 * target: trace-boundaries.ts), and the instrumentations this system needs. The exporters read endpoint, headers
 * and timeouts from the standard OTEL_EXPORTER_OTLP_* variables, the batch processor OTEL_BSP_*,
 * the resource OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; the sampler is OTEL_TRACES_SAMPLER.
 * Not the all-in-one @opentelemetry/sdk-node: it brings gRPC, metrics and logs exporters the
 * image would carry for nothing.
 *
 * Our code is ESM, so the instrumented packages are patched through the import-in-the-middle
 * loader hook; it intercepts only the modules an instrumentation asked for, not our own.
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register("import-in-the-middle/hook.mjs", import.meta.url, registerOptions);

  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf").trim();
  const exporter = protocol === "http/json" ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const provider = new TracerProvider({
    resource: defaultResource().merge(detectResources({ detectors: [processDetector, hostDetector, envDetector] })),
    // Query strings are redacted before any span is exported (trace-boundaries.ts).
    spanProcessors: [redactQueryStrings, new BatchSpanProcessor({ exporter, ...batchSettings(env) })],
    ...samplerFromEnv(env),
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // A caller's trace context and baggage are not taken from plain-HTTP requests (a fresh root at
  // the edge), and none is sent where propagation is turned off (deliveries): trace-boundaries.ts.
  propagation.setGlobalPropagator(boundedPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] })));
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    instrumentations: [
      new HttpInstrumentation({ startIncomingSpanHook: markUntrustedInbound }),
      new ExpressInstrumentation(),
      // Polling queries (outbox relay, delivery claims) outside any request would each be a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
      new KafkaJsInstrumentation(),
    ],
  });
  await waitForAllMessagesAcknowledged();
  // Spans still buffered are exported when the event loop empties. No signal handler here: that
  // would change how a process without one of its own (the CLI, migrations) reacts to SIGTERM.
  process.once("beforeExit", () => void provider.shutdown().catch(() => undefined));
}

/** OTEL_BSP_* (the batch span processor's settings); unset ones keep the SDK defaults. */
function batchSettings(env: NodeJS.ProcessEnv) {
  const settings = {
    maxQueueSize: env.OTEL_BSP_MAX_QUEUE_SIZE,
    scheduledDelayMillis: env.OTEL_BSP_SCHEDULE_DELAY,
    exportTimeoutMillis: env.OTEL_BSP_EXPORT_TIMEOUT,
    maxExportBatchSize: env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
  };
  return Object.fromEntries(Object.entries(settings).flatMap(([name, value]) => (value && Number(value) >= 0 ? [[name, Number(value)]] : [])));
}
