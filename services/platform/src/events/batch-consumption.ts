import { context, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { captureEventContext, withEventContext } from "../telemetry/event-context.ts";
import type { EventSubscription, IncomingEvent } from "./event-bus.ts";

/** An event as a transport read it, before its consumption context is known. */
export type ReceivedEvent = Omit<IncomingEvent, "consumptionContext">;

const tracer = trace.getTracer("@svc/platform/events");

/**
 * Hands `received` to the subscription as one batch, the one way both buses do it. Each event is
 * consumed in the request and trace it was published in: its consumption context is captured
 * there (with `consumerSpans`, inside a consumer span of its own, ended when the batch is done;
 * Kafka's, whose instrumentation would otherwise start each batch in a trace of its own), so
 * the work it causes later stays in its trace, whatever else shares the batch. The batch itself
 * (one statement for all) can belong to one trace only: its first event's.
 */
export async function handleReceivedBatch(subscription: EventSubscription, received: ReceivedEvent[], options: { consumerSpans: boolean }): Promise<void> {
  if (received.length === 0) return;
  const spans: Span[] = [];
  const inConsumption = <T>(index: number, work: () => T): T =>
    withEventContext(received[index]!.context, () => {
      if (!options.consumerSpans) return work();
      spans[index] ??= tracer.startSpan(`process ${subscription.topic}`, {
        kind: SpanKind.CONSUMER,
        attributes: {
          "messaging.destination.name": subscription.topic,
          "messaging.operation.type": "process",
          "messaging.consumer.group.name": subscription.groupId,
          "messaging.message.id": received[index]!.id,
          "messaging.batch.message_count": received.length,
        },
      });
      return context.with(trace.setSpan(context.active(), spans[index]), work);
    });
  const events = received.map((event, index) => ({ ...event, consumptionContext: inConsumption(index, captureEventContext) }));
  try {
    await inConsumption(0, () => subscription.handleBatch(events));
  } catch (error) {
    for (const span of spans) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    throw error;
  } finally {
    for (const span of spans) span.end();
  }
}
