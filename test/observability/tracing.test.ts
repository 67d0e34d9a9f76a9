import { beforeAll, describe, expect, it } from "vitest";
import { startOtlpReceiver, tracingEnv, type ReceivedSpan } from "../support/otlp-receiver.ts";
import { useResource } from "../support/use-resource.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { succeeded, useStack } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";
import { useWebhookReceiver } from "../support/webhook-fixtures.ts";

const describeSpans = (spans: ReceivedSpan[]) =>
  spans.map((span) => `${span.service} ${span.kind} ${span.name} ${span.spanId}<-${span.parentSpanId}`).join("\n");

// Every process exports its spans to a local OTLP/HTTP receiver; ending a meeting that has a
// webhook subscriber must leave one trace from the REST call to the delivery attempt, over Kafka
// and over the embedded Postgres event bus.
describe.each([
  { transport: "kafka", kafka: true },
  { transport: "the Postgres event bus", kafka: false },
])("tracing over $transport", ({ kafka }) => {
  let tenant: Tenant;

  // The OTLP receiver first: the stack's processes are told its address.
  const otlp = useResource("the OTLP receiver", startOtlpReceiver, (started) => started.close());
  const fixture = useStack(() => ({ kafka, env: { ...tracingEnv(otlp()), LOG_LEVEL: "debug" } }));
  const receiver = useWebhookReceiver();
  beforeAll(async () => {
    tenant = await createTenant(fixture.stack);
  });

  const client = () => fixture.client(tenant.apiKey);
  /** Subscribes `path` on the receiver to meeting.ended (201), telling the receiver its secret. */
  async function subscribe(path: string) {
    const { data, response } = await client().POST("/webhook", { body: { url: `${receiver.baseUrl}${path}`, events: ["meeting.ended"] } });
    expect(response.status).toBe(201);
    receiver.useSecret(path.split("?")[0]!, data!.secret);
  }

  it("one trace covers POST /meeting/:id/end from the gateway to the webhook delivery attempt", { timeout: 90_000 }, async () => {
    const { stack } = fixture;
    await subscribe("/traced");
    const meeting = await succeeded(client().POST("/meeting", { body: { title: "Traced" } }));

    const { response: ended } = await client().POST("/meeting/{id}/end", { params: { path: { id: meeting.id } } });
    expect(ended.status).toBe(200);
    await waitFor(() => receiver.on("/traced").length >= 1, 30_000, "the webhook was not delivered");

    // The trace is the one whose gateway server span is the end call.
    const endSpan = () =>
      otlp()
        .spans()
        .find((span) => span.service === "svc-gateway" && span.kind === 2 && span.attributes["http.route"] === "/api/v1/meeting/:id/end");
    const traceSpans = () =>
      otlp()
        .spans()
        .filter((span) => span.traceId === endSpan()?.traceId);
    const attemptSpan = () => traceSpans().find((span) => span.service === "svc-webhook" && span.name === "webhook delivery attempt");
    // The delivery attempt's log line, written once its success is recorded.
    const deliveredLine = () =>
      stack
        .logs("webhook")
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg?: string; trace_id?: string; span_id?: string; trace_flags?: string; requestId?: string })
        .find((line) => line.msg === "delivered");
    // Each process exports its spans in its own batches, so the attempt's span may arrive before
    // the Kafka producer span it descends from: wait until every span's parent is in the trace.
    const closed = () => {
      const ids = new Set(traceSpans().map((span) => span.spanId));
      return traceSpans().every((span) => !span.parentSpanId || ids.has(span.parentSpanId));
    };
    await waitFor(() => attemptSpan() !== undefined && closed() && deliveredLine() !== undefined, 30_000).catch(
      () => undefined, // the assertions below say what is missing, with every span received
    );

    const spans = traceSpans();
    const has = (service: string, kind: number, name: (name: string) => boolean) =>
      spans.some((span) => span.service === service && span.kind === kind && name(span.name));
    const why = describeSpans(spans);
    expect(
      has("svc-gateway", 2, (name) => name.startsWith("POST")),
      why,
    ).toBe(true);
    expect(
      has("svc-gateway", 3, (name) => name === "svc.meeting.v1.MeetingService/EndMeeting"),
      why,
    ).toBe(true);
    expect(
      has("svc-meeting", 2, (name) => name === "svc.meeting.v1.MeetingService/EndMeeting"),
      why,
    ).toBe(true);
    expect(
      spans.some((span) => span.service === "svc-meeting" && span.attributes["db.system"] === "postgresql") ||
        spans.some((span) => span.service === "svc-meeting" && span.attributes["db.system.name"] === "postgresql"),
      why,
    ).toBe(true);
    // Kafka: the produce and consume spans; the Postgres bus has none of its own (its queries are pg spans).
    expect(
      has("svc-meeting", 4, (name) => name.includes("meeting.events")),
      why,
    ).toBe(kafka);
    expect(
      has("svc-webhook", 5, (name) => name.includes("meeting.events")),
      why,
    ).toBe(kafka);
    // The webhook service stored the deliveries inside the trace, whichever bus carried the event.
    expect(
      spans.some((span) => span.service === "svc-webhook" && span.name.startsWith("pg.query")),
      why,
    ).toBe(true);
    const attempt = attemptSpan()!;
    expect(attempt, why).toBeDefined();
    expect(attempt.attributes["http.response.status_code"]).toBe(204);
    expect(typeof attempt.attributes["svc.webhook.latency_ms"]).toBe("number");

    // The delivery attempt's log line names the same trace (and the request).
    const delivered = deliveredLine();
    // Named as OpenTelemetry's log data model names the trace context outside OTLP.
    expect(delivered?.trace_id).toBe(attempt.traceId);
    expect(delivered?.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(spans.map((span) => span.spanId)).toContain(delivered?.span_id);
    expect(delivered?.trace_flags).toBe("01");
    expect(delivered?.requestId).toBe(ended.headers.get("x-request-id"));

    // A tree: one root (the gateway's server span), every other span's parent in the same trace.
    const ids = new Set(spans.map((span) => span.spanId));
    const roots = spans.filter((span) => !span.parentSpanId);
    expect(
      roots.map((span) => span.spanId),
      why,
    ).toEqual([endSpan()!.spanId]);
    expect(
      spans.filter((span) => span.parentSpanId && !ids.has(span.parentSpanId)),
      why,
    ).toEqual([]);
  });

  it(
    "the public edge starts a fresh trace: a caller's traceparent and baggage are not continued, not stored and not delivered; query strings are redacted in span attributes",
    { timeout: 90_000 },
    async () => {
      const callerTraceId = "0af7651916cd43dd8448eb211c80319c";
      const hostile = { traceparent: `00-${callerTraceId}-b7ad6b7169203331-01`, baggage: "tenant=attacker,role=admin" };
      const { stack } = fixture;
      await subscribe("/edge?token=s3cr3t-query-token");
      const meeting = await succeeded(client().POST("/meeting", { body: { title: "Edge" } }));
      // A raw request: a query string the API does not define, which the typed client has no place for.
      const ended = await fetch(`${stack.gatewayUrl}/api/v1/meeting/${meeting.id}/end?marker=s3cr3t-request-query`, {
        method: "POST",
        headers: { authorization: `Bearer ${tenant.apiKey}`, ...hostile },
      });
      expect(ended.status).toBe(200);
      await waitFor(() => receiver.on("/edge").length >= 1, 30_000, "the webhook was not delivered");
      const attempt = () =>
        otlp()
          .spans()
          .find((span) => span.name === "webhook delivery attempt" && span.attributes["svc.webhook.subscription_id"] !== undefined);
      await waitFor(() => attempt() !== undefined, 30_000, "no delivery attempt span");
      const clientSpan = () =>
        otlp()
          .spans()
          .find((span) => span.kind === 3 && String(span.attributes["url.full"] ?? "").includes("/edge"));
      await waitFor(() => clientSpan() !== undefined, 30_000, "no HTTP client span of the delivery");

      // The customer's endpoint sees neither the caller's context nor ours.
      const [delivery] = receiver.on("/edge");
      expect(delivery!.headers).not.toHaveProperty("traceparent");
      expect(delivery!.headers).not.toHaveProperty("tracestate");
      expect(delivery!.headers).not.toHaveProperty("baggage");
      // Nothing was recorded in the caller's trace; the gateway's span of the call is a root of its own.
      const spans = otlp().spans();
      expect(spans.filter((span) => span.traceId === callerTraceId)).toEqual([]);
      const edge = spans.find(
        (span) =>
          span.service === "svc-gateway" && span.kind === 2 && span.attributes["http.route"] === "/api/v1/meeting/:id/end" && span.traceId !== callerTraceId,
      );
      expect(edge?.parentSpanId, describeSpans(spans)).toBeFalsy();
      // The stored event context holds no baggage.
      const { rows } = await stack.query<{ context_headers: Record<string, string> | null }>("SELECT context_headers FROM webhook.events WHERE org_id = $1", [
        tenant.orgId,
      ]);
      for (const row of rows) expect(row.context_headers ?? {}).not.toHaveProperty("baggage");
      // No span attribute holds a query string's value.
      const values = spans.flatMap((span) => Object.values(span.attributes).map(String));
      expect(values.filter((value) => value.includes("s3cr3t"))).toEqual([]);
      expect(clientSpan()!.attributes["url.full"]).toBe(`${receiver.baseUrl}/edge?REDACTED`);
    },
  );
});
