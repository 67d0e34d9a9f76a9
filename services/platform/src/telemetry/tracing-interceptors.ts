import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";
import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import { tracingConfigured } from "./tracing-config.ts";

/**
 * Connect-ES has no OpenTelemetry instrumentation of its own: these two interceptors carry the W3C
 * `traceparent` (and `tracestate`/`baggage`) across every call between our processes and record
 * one client and one server span per RPC, named `package.Service/Method`, with the RPC semantic
 * conventions (rpc.system, rpc.service, rpc.method, rpc.connect_rpc.error_code).
 */
const tracer = trace.getTracer("@svc/platform/connect");

const headerSetter = { set: (carrier: Headers, key: string, value: string) => carrier.set(key, value) };
const headerGetter = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  keys: (carrier: Headers) => {
    const keys: string[] = [];
    carrier.forEach((_value, key) => keys.push(key));
    return keys;
  },
};

type AnyRequest = Parameters<Parameters<Interceptor>[0]>[0];

function rpcAttributes(request: AnyRequest): Attributes {
  return { "rpc.system": "connect_rpc", "rpc.service": request.service.typeName, "rpc.method": request.method.name };
}

const spanName = (request: AnyRequest) => `${request.service.typeName}/${request.method.name}`;

/** Runs `call` inside `span`, records how it ended, and ends the span. */
async function recordCall<T>(span: Span, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const connectError = ConnectError.from(error);
    span.setAttribute("rpc.connect_rpc.error_code", codeToString(connectError.code));
    span.setStatus({ code: SpanStatusCode.ERROR, message: connectError.rawMessage });
    throw error;
  } finally {
    span.end();
  }
}

export const tracingClientInterceptor: Interceptor = (next) => (request) =>
  tracer.startActiveSpan(spanName(request), { kind: SpanKind.CLIENT, attributes: rpcAttributes(request) }, (span) =>
    recordCall(span, () => {
      propagation.inject(context.active(), request.header, headerSetter);
      return next(request);
    }),
  );

export const tracingServerInterceptor: Interceptor = (next) => (request) => {
  const parent = propagation.extract(context.active(), request.header, headerGetter);
  return tracer.startActiveSpan(spanName(request), { kind: SpanKind.SERVER, attributes: rpcAttributes(request) }, parent, (span) =>
    recordCall(span, () => next(request)),
  );
};

/** The tracing interceptors to install: none when tracing is off, so an RPC pays nothing for it. */
export const tracingInterceptors = (side: "client" | "server"): Interceptor[] =>
  tracingConfigured() ? [side === "client" ? tracingClientInterceptor : tracingServerInterceptor] : [];
