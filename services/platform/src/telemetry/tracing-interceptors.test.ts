import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus } from "@svc/proto/health/v1/health_pb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { currentRequestId, withRequestId } from "./request-context.ts";
import { requestIdClientInterceptor, requestIdServerInterceptor } from "./request-id-interceptors.ts";
import { tracingClientInterceptor, tracingServerInterceptor } from "./tracing-interceptors.ts";

// A real tracer provider in memory, and a Connect client and server joined in process by the
// interceptors under test.
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  propagation.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const seenRequestIds: (string | undefined)[] = [];
const client = createClient(
  Health,
  createRouterTransport(
    (router) =>
      router.service(Health, {
        check(request) {
          seenRequestIds.push(currentRequestId());
          if (request.service === "missing") throw new ConnectError("no such service", Code.NotFound);
          return { status: HealthCheckResponse_ServingStatus.SERVING };
        },
      }),
    {
      transport: { interceptors: [requestIdClientInterceptor, tracingClientInterceptor] },
      router: { interceptors: [requestIdServerInterceptor, tracingServerInterceptor] },
    },
  ),
);

describe("Connect tracing and request-id interceptors", () => {
  it("record a client and a server span per call, the server's a child of the client's, with the RPC conventions", async () => {
    await withRequestId("req-42", () => client.check({ service: "" }));
    const spans = exporter.getFinishedSpans();
    const clientSpan = spans.find((span) => span.kind === 2);
    const serverSpan = spans.find((span) => span.kind === 1);
    expect(clientSpan?.name).toBe("grpc.health.v1.Health/Check");
    expect(serverSpan?.name).toBe("grpc.health.v1.Health/Check");
    expect(serverSpan!.spanContext().traceId).toBe(clientSpan!.spanContext().traceId);
    expect(serverSpan!.parentSpanContext?.spanId).toBe(clientSpan!.spanContext().spanId);
    expect(serverSpan!.attributes).toMatchObject({ "rpc.system": "connect_rpc", "rpc.service": "grpc.health.v1.Health", "rpc.method": "Check" });
    expect(seenRequestIds.at(-1)).toBe("req-42");
  });

  it("record the Connect error code on both sides of a failed call", async () => {
    await expect(client.check({ service: "missing" })).rejects.toThrow("no such service");
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(2);
    for (const span of spans) {
      expect(span.attributes["rpc.connect_rpc.error_code"]).toBe("not_found");
      expect(span.status.code).toBe(2); // SpanStatusCode.ERROR
    }
    expect(seenRequestIds.at(-1)).toBeUndefined();
  });
});
