import { SpanStatusCode, trace } from "@opentelemetry/api";
import { tracingConfigured } from "@svc/platform";
import type { ClaimedDelivery } from "../db/deliveries.ts";
import type { AttemptOutcome } from "./http-sender.ts";

const tracer = trace.getTracer("@svc/webhook/delivery");
const tracing = tracingConfigured();

/** The span name of one delivery attempt; its HTTP request is a child span (undici). */
export const ATTEMPT_SPAN_NAME = "webhook delivery attempt";

/**
 * Records one delivery attempt as a span of the current trace (the dispatcher makes the event's
 * trace current), with the attempt number, the response status and the latency. Without tracing
 * it only sends.
 */
export function tracedAttempt(delivery: ClaimedDelivery, send: () => Promise<AttemptOutcome>): Promise<AttemptOutcome> {
  if (!tracing) return send();
  const attributes = {
    "svc.webhook.delivery_id": delivery.id,
    "svc.webhook.subscription_id": delivery.subscriptionId,
    "svc.webhook.event_type": delivery.eventType,
    "svc.webhook.attempt": delivery.attemptCount + 1,
  };
  return tracer.startActiveSpan(ATTEMPT_SPAN_NAME, { attributes }, async (span) => {
    try {
      const outcome = await send();
      if (outcome.statusCode !== undefined) span.setAttribute("http.response.status_code", outcome.statusCode);
      span.setAttribute("svc.webhook.latency_ms", outcome.latencyMs);
      span.setAttribute("svc.webhook.timed_out", outcome.timedOut);
      if (!outcome.succeeded) span.setStatus({ code: SpanStatusCode.ERROR, ...(outcome.error ? { message: outcome.error } : {}) });
      return outcome;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
