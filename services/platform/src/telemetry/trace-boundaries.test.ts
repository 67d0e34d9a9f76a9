import { context, propagation, ROOT_CONTEXT, trace, type TextMapPropagator } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boundedPropagator, markUntrustedInbound, redactQueryStrings, withoutPathSecrets, withoutQuery, withoutTracePropagation } from "./trace-boundaries.ts";

const w3c = (): TextMapPropagator => new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
const callerHeaders = () => ({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", baggage: "tenant=attacker,role=admin" });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(boundedPropagator(w3c()));
});
afterAll(() => {
  propagation.disable();
  context.disable();
});

describe("trace boundaries", () => {
  it("takes nothing from the headers of an inbound plain-HTTP request, but still from other carriers (RPC metadata, stored event context)", () => {
    const inbound = { headers: callerHeaders() };
    markUntrustedInbound(inbound);
    const fromEdge = propagation.extract(ROOT_CONTEXT, inbound.headers);
    expect(trace.getSpanContext(fromEdge)).toBeUndefined();
    expect(propagation.getBaggage(fromEdge)).toBeUndefined();
    const internal = propagation.extract(ROOT_CONTEXT, callerHeaders());
    expect(trace.getSpanContext(internal)?.traceId).toBe("0af7651916cd43dd8448eb211c80319c");
  });

  it("injects no trace context or baggage under withoutTracePropagation, and injects them elsewhere", () => {
    const active = propagation.extract(ROOT_CONTEXT, callerHeaders());
    context.with(active, () => {
      const outside: Record<string, string> = {};
      withoutTracePropagation(() => propagation.inject(context.active(), outside));
      expect(outside).toEqual({});
      const inside: Record<string, string> = {};
      propagation.inject(context.active(), inside);
      expect(Object.keys(inside).sort()).toEqual(["baggage", "traceparent"]);
    });
  });

  it("redacts the query string of URL attributes at span start", () => {
    const attributes: Record<string, unknown> = {
      "url.full": "https://hooks.example.com/in/abc?token=s3cr3t#frag",
      "http.url": "https://hooks.example.com/x?token=s3cr3t",
      "http.target": "/api/v1/meeting?key=s3cr3t",
      "url.query": "?token=s3cr3t",
      "url.path": "/in/abc",
    };
    redactQueryStrings.onStart({ attributes, setAttribute: (key, value) => (attributes[key] = value) });
    expect(attributes).toEqual({
      "url.full": "https://hooks.example.com/in/abc?REDACTED",
      "http.url": "https://hooks.example.com/x?REDACTED",
      "http.target": "/api/v1/meeting?REDACTED",
      "url.query": "REDACTED",
      "url.path": "/in/abc",
    });
    expect(withoutQuery("https://example.com/no-query")).toBe("https://example.com/no-query");
  });

  it("redacts a recording download link's token from URL attributes and the span's name", () => {
    const token = "rec_0123456789abcdef.1767225600.c2lnbmF0dXJl";
    const attributes: Record<string, unknown> = {
      "url.full": `https://api.example.com/api/v1/recording-downloads/${token}?x=1`,
      "http.target": `/api/v1/recording-downloads/${token}`,
      "url.path": `/api/v1/recording-downloads/${token}`,
      "http.route": "/api/v1/recording-downloads/:token",
    };
    const span = { attributes, name: `GET /api/v1/recording-downloads/${token}`, setAttribute: (key: string, value: string) => (attributes[key] = value) };
    redactQueryStrings.onStart({ ...span, updateName: (name: string) => (span.name = name) });
    expect(JSON.stringify({ attributes, name: span.name })).not.toContain(token);
    expect(attributes["url.path"]).toBe("/api/v1/recording-downloads/REDACTED");
    expect(span.name).toBe("GET /api/v1/recording-downloads/REDACTED");
    expect(withoutPathSecrets("/api/v1/meeting/abc")).toBe("/api/v1/meeting/abc");
  });
});
