import { isSpanContextValid, trace } from "@opentelemetry/api";
import { currentRequestId } from "./request-context.ts";

/**
 * The trace context on a log line, named as OpenTelemetry's log data model names it for log
 * formats other than OTLP ("Trace Context in Non-OTLP Log Formats"): `trace_id` and `span_id` in
 * lowercase hex, `trace_flags` as two hex digits (`01`: sampled). So a log pipeline (the
 * OpenTelemetry Collector's JSON parser, Loki, Elastic) links the line to its trace without mapping.
 */
export interface LogTraceContext {
  trace_id?: string;
  span_id?: string;
  trace_flags?: string;
}

/**
 * The fields every log line gets (a pino mixin): `requestId` while handling a request, and the
 * trace context while a span is current (also one continued from another process, such as an
 * event's). Without the tracing SDK no span is ever current, so this costs one AsyncLocalStorage
 * read and one no-op context lookup per line.
 */
export function logCorrelationFields(): { requestId?: string } & LogTraceContext {
  const requestId = currentRequestId();
  const active = trace.getActiveSpan()?.spanContext();
  const spanContext = active && isSpanContextValid(active) ? active : undefined;
  if (!requestId && !spanContext) return {};
  return {
    ...(requestId ? { requestId } : {}),
    ...(spanContext ? { trace_id: spanContext.traceId, span_id: spanContext.spanId, trace_flags: spanContext.traceFlags.toString(16).padStart(2, "0") } : {}),
  };
}
