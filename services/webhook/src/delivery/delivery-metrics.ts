import type { Logger } from "@svc/platform";
import type { Pool } from "@svc/platform/db";
import { counterIn, histogramIn, scrapeGauges, type Registry } from "@svc/platform/telemetry";
import { readDeliveryBacklog } from "../db/backlog.ts";
import type { AttemptOutcome, HttpSender } from "./http-sender.ts";

/** What became of an attempt: a 2xx, another answer, no answer in time, or no answer at all. */
export function attemptOutcomeLabel(outcome: AttemptOutcome): "succeeded" | "failed" | "timeout" | "error" {
  if (outcome.succeeded) return "succeeded";
  if (outcome.statusCode !== undefined) return "failed";
  return outcome.timedOut ? "timeout" : "error";
}

/** "2xx".."5xx" for an answer, "none" when no response arrived. */
export function statusClassLabel(statusCode: number | undefined): string {
  return statusCode === undefined ? "none" : `${Math.floor(statusCode / 100)}xx`;
}

/**
 * The sender, recording every attempt it makes: webhook_delivery_attempts_total{outcome,
 * status_class} and webhook_delivery_attempt_duration_seconds{outcome}.
 */
export function measuredSender(sender: HttpSender, registry: Registry | undefined): HttpSender {
  if (!registry) return sender;
  const attempts = counterIn(registry, "webhook_delivery_attempts_total", "Webhook delivery attempts, by outcome and response status class.", [
    "outcome",
    "status_class",
  ]);
  const duration = histogramIn(registry, "webhook_delivery_attempt_duration_seconds", "Time from sending a webhook to its answer (or giving up), by outcome.", [
    "outcome",
  ]);
  return {
    async send(message, signal) {
      const outcome = await sender.send(message, signal);
      const label = attemptOutcomeLabel(outcome);
      attempts.inc({ outcome: label, status_class: statusClassLabel(outcome.statusCode) });
      duration.observe({ outcome: label }, outcome.latencyMs / 1000);
      return outcome;
    },
    close: () => sender.close(),
  };
}

/** The delivery backlog, read from the database at scrape time (so every replica reports the same numbers). */
export function deliveryBacklogGauges(registry: Registry | undefined, pool: Pool, logger: Logger): void {
  if (!registry) return;
  scrapeGauges({
    registry,
    logger,
    gauges: {
      pending: { name: "webhook_deliveries_pending", help: "Deliveries not yet settled (due, waiting for a retry, or in flight)." },
      due: { name: "webhook_deliveries_due", help: "Pending deliveries that are due now and held by no dispatcher." },
      oldestDueAgeSeconds: {
        name: "webhook_oldest_due_delivery_age_seconds",
        help: "How long the longest-waiting due delivery has been due (0 when none is).",
      },
    },
    read: () => readDeliveryBacklog(pool),
  });
}
