import { context, propagation } from "@opentelemetry/api";
import { currentRequestId, isAcceptableRequestId, REQUEST_ID_HEADER, withRequestId } from "./request-context.ts";

/**
 * The context an event carries from the request that caused it to the work it causes later,
 * possibly minutes later and in another process: the W3C trace context (`traceparent`,
 * `tracestate`) when tracing is on, and the request id. Stored with outbox rows and webhook
 * events, sent as Kafka message headers (and a column of the Postgres event bus).
 */
export type EventContextHeaders = Record<string, string>;

/** The context of the work in progress, to store with an event it writes. Empty when there is none. */
export function captureEventContext(): EventContextHeaders {
  const headers: EventContextHeaders = {};
  propagation.inject(context.active(), headers);
  const requestId = currentRequestId();
  if (requestId) headers[REQUEST_ID_HEADER] = requestId;
  return headers;
}

/** Runs `work` as part of the request named in `headers` (the trace is left as it is). */
export function withEventRequestId<T>(headers: EventContextHeaders | null | undefined, work: () => T): T {
  const requestId = headers?.[REQUEST_ID_HEADER];
  return isAcceptableRequestId(requestId) ? withRequestId(requestId, work) : work();
}

/** Runs `work` in the trace `headers` were captured in (as it is when they name none). */
export function withEventTrace<T>(headers: EventContextHeaders | null | undefined, work: () => T): T {
  return headers?.traceparent ? context.with(propagation.extract(context.active(), headers), work) : work();
}

/** Runs `work` in the trace and as part of the request that `headers` were captured in. */
export const withEventContext = <T>(headers: EventContextHeaders | null | undefined, work: () => T): T =>
  withEventTrace(headers, () => withEventRequestId(headers, work));
