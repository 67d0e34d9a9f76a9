import { isSpanContextValid, trace } from "@opentelemetry/api";
import { currentRequestId } from "./request-context.ts";

/**
 * The fields every log line gets (a pino mixin): `requestId` while handling a request, and
 * `traceId`/`spanId` while a span is current (also one continued from another process, such as an
 * event's). Without the tracing SDK no span is ever current, so this costs one AsyncLocalStorage
 * read and one no-op context lookup per line.
 */
export function logCorrelationFields(): { requestId?: string; traceId?: string; spanId?: string } {
  const requestId = currentRequestId();
  const active = trace.getActiveSpan()?.spanContext();
  const spanContext = active && isSpanContextValid(active) ? active : undefined;
  if (!requestId && !spanContext) return {};
  return {
    ...(requestId ? { requestId } : {}),
    ...(spanContext ? { traceId: spanContext.traceId, spanId: spanContext.spanId } : {}),
  };
}
