import { trace } from "@opentelemetry/api";
import { currentRequestId } from "./request-context.ts";

/**
 * The fields every log line gets (a pino mixin): `requestId` while handling a request, and
 * `traceId`/`spanId` while a recording span is active. Without the tracing SDK no span is ever
 * active, so this costs one AsyncLocalStorage read and one no-op context lookup per line.
 */
export function logCorrelationFields(): { requestId?: string; traceId?: string; spanId?: string } {
  const requestId = currentRequestId();
  const span = trace.getActiveSpan();
  const spanContext = span?.isRecording() ? span.spanContext() : undefined;
  if (!requestId && !spanContext) return {};
  return {
    ...(requestId ? { requestId } : {}),
    ...(spanContext ? { traceId: spanContext.traceId, spanId: spanContext.spanId } : {}),
  };
}
