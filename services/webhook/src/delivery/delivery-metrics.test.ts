import { createMetricsRegistry } from "@svc/platform/telemetry";
import { describe, expect, it } from "vitest";
import { measuredSender, statusClassLabel } from "./delivery-metrics.ts";
import type { AttemptOutcome, HttpSender } from "./http-sender.ts";

const outcome = (fields: Partial<AttemptOutcome>): AttemptOutcome => ({
  attemptedAt: new Date(),
  succeeded: false,
  latencyMs: 250,
  responseExcerpt: "",
  timedOut: false,
  ...fields,
});

describe("delivery metrics", () => {
  it("count each attempt by outcome and status class, and time it", async () => {
    const registry = createMetricsRegistry("webhook");
    const answers = [outcome({ succeeded: true, statusCode: 204 }), outcome({ statusCode: 503 }), outcome({ timedOut: true }), outcome({ error: "refused" })];
    const fake: HttpSender = { send: async () => answers.shift()!, close: async () => undefined };
    const sender = measuredSender(fake, registry);
    for (let i = 0; i < 4; i++) await sender.send({ url: "https://example.test/hook", messageId: "msg", body: "{}", signingKeys: [] });
    const text = await registry.metrics();
    expect(text).toContain('webhook_delivery_attempts_total{outcome="succeeded",status_class="2xx",service="webhook"} 1');
    expect(text).toContain('webhook_delivery_attempts_total{outcome="failed",status_class="5xx",service="webhook"} 1');
    expect(text).toContain('webhook_delivery_attempts_total{outcome="timeout",status_class="none",service="webhook"} 1');
    expect(text).toContain('webhook_delivery_attempts_total{outcome="error",status_class="none",service="webhook"} 1');
    expect(text).toContain('webhook_delivery_attempt_duration_seconds_sum{service="webhook",outcome="succeeded"} 0.25');
  });

  it("name a status class by its first digit", () => {
    expect([statusClassLabel(200), statusClassLabel(302), statusClassLabel(429), statusClassLabel(599), statusClassLabel(undefined)]).toEqual([
      "2xx",
      "3xx",
      "4xx",
      "5xx",
      "none",
    ]);
  });
});
