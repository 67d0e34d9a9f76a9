import { once } from "node:events";
import * as grpc from "@grpc/grpc-js";
import type { DescMessage, DescMethod, MessageShape } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createHandlerContext,
  createMethodImplSpec,
  createServiceImplSpec,
  type ConnectRouter,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
  type StreamRequest,
  type StreamResponse,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import type { Logger } from "../../logger.ts";
import type { ShutdownDrain } from "../../shutdown-drain.ts";
import { applyInterceptors, asMessage, grpcJsMethodDefinition, grpcJsStatusOf, headersFromMetadata, metadataFromHeaders, methodPath } from "./bridge.ts";

type Message = MessageShape<DescMessage>;

export interface GrpcJsServerOptions {
  name: string;
  host: string;
  port: number;
  logger: Logger;
  /** The same routes the Connect server is given: every service implementation, unchanged. */
  routes: (router: ConnectRouter) => void;
  /** The same Connect interceptors, outermost first, around every call. */
  interceptors: readonly Interceptor[];
  readMaxBytes: number;
  drain?: ShutdownDrain;
}

export interface RunningGrpcJsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The services' implementations served by @grpc/grpc-js, for the platform's own hottest callers
 * (decision 0018: a grpc-js hop costs about 410 µs of CPU less than a Connect one). Only the gRPC
 * protocol; Connect, gRPC-Web and reflection stay on startServer's port. The implementations and
 * interceptors are Connect-ES's own: each call gets a HandlerContext as Connect would build it,
 * so a handler cannot tell the two servers apart.
 */
export async function startGrpcJsServer(options: GrpcJsServerOptions): Promise<RunningGrpcJsServer> {
  const server = new grpc.Server({ "grpc.max_receive_message_length": options.readMaxBytes });
  for (const spec of collectMethods(options.routes)) {
    const definition = grpcJsMethodDefinition(spec.method);
    const handler = handlerFor(spec, options.interceptors, options.logger);
    // One method at a time: register() is grpc-js's API for a handler of a single path.
    server.register(
      definition.path,
      handler as grpc.UntypedHandleCall as never,
      definition.responseSerialize,
      definition.requestDeserialize,
      handlerType(spec.method),
    );
  }
  const address = `${options.host.includes(":") ? `[${options.host}]` : options.host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  const boundAddress = address.replace(/:\d+$/, `:${port}`);
  // During the drain the sessions get a GOAWAY (callers open new ones, which the Service sends to
  // another pod) and keep serving what they have in flight.
  options.drain?.whenDraining(() => server.drain(boundAddress, Math.max(options.drain!.durationMs, 1_000)));
  options.logger.info({ host: options.host, port }, `${options.name} listening (gRPC over @grpc/grpc-js, for the platform's own callers)`);
  return {
    port,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

/** What `routes` registers, as Connect's own method specs (missing methods answer UNIMPLEMENTED). */
function collectMethods(routes: (router: ConnectRouter) => void): MethodImplSpec[] {
  const methods: MethodImplSpec[] = [];
  const router: ConnectRouter = {
    handlers: [],
    service(service, implementation) {
      methods.push(...Object.values(createServiceImplSpec(service, implementation).methods));
      return router;
    },
    rpc(method, implementation) {
      methods.push(createMethodImplSpec(method, implementation));
      return router;
    },
  };
  routes(router);
  return methods;
}

/** The handler types grpc-js's Server.register() knows. */
function handlerType(method: DescMethod): "unary" | "serverStream" | "clientStream" | "bidi" {
  switch (method.methodKind) {
    case "unary":
      return "unary";
    case "server_streaming":
      return "serverStream";
    case "client_streaming":
      return "clientStream";
    case "bidi_streaming":
      return "bidi";
  }
}

type AnyCall = grpc.ServerUnaryCall<Message, Message> | grpc.ServerWritableStream<Message, Message>;

function handlerFor(spec: MethodImplSpec, interceptors: readonly Interceptor[], logger: Logger) {
  switch (spec.kind) {
    case "unary":
      return unaryHandler(spec, interceptors);
    case "server_streaming":
      return serverStreamingHandler(spec, interceptors, logger);
    default:
      // No RPC of ours streams requests; answered as Connect would answer an unknown method.
      return (call: grpc.ServerDuplexStream<Message, Message>) =>
        call.emit("error", grpcJsStatusOf(new ConnectError(`${methodPath(spec.method)} streams requests, which this port does not serve`, Code.Unimplemented)));
  }
}

function unaryHandler(spec: Extract<MethodImplSpec, { kind: "unary" }>, interceptors: readonly Interceptor[]): grpc.handleUnaryCall<Message, Message> {
  const { method } = spec;
  return (call, callback) => {
    const context = handlerContextOf(call, method);
    const invoke = applyInterceptors(
      async (request: UnaryRequest<DescMessage, DescMessage>): Promise<UnaryResponse> => ({
        stream: false,
        service: method.parent,
        method: spec.method,
        header: context.responseHeader,
        trailer: context.responseTrailer,
        message: asMessage(method.output, await spec.impl(request.message, withRequest(context, request))),
      }),
      interceptors,
    );
    invoke({ stream: false, method: spec.method, message: call.request, ...requestCommon(context) })
      .then((response) => {
        sendHeader(call, response.header);
        callback(null, response.message, metadataFromHeaders(response.trailer));
      })
      // The handler's error, or a response header it set that gRPC cannot carry.
      .catch((error: unknown) => callback(grpcJsStatusOf(error)))
      .finally(() => context.abort());
  };
}

function serverStreamingHandler(
  spec: Extract<MethodImplSpec, { kind: "server_streaming" }>,
  interceptors: readonly Interceptor[],
  logger: Logger,
): grpc.handleServerStreamingCall<Message, Message> {
  const { method } = spec;
  return (call) => {
    const context = handlerContextOf(call, method);
    const invoke = applyInterceptors(async (request: StreamRequest): Promise<StreamResponse> => {
      let input: Message | undefined;
      for await (const message of request.message) input = message;
      return {
        stream: true,
        service: method.parent,
        method: spec.method,
        header: context.responseHeader,
        trailer: context.responseTrailer,
        message: outputOf(method, spec.impl(input!, withRequest(context, request))),
      };
    }, interceptors);
    void (async () => {
      try {
        const response = await invoke({ stream: true, method: spec.method, message: single(call.request), ...requestCommon(context) });
        // The header goes with the first message, as Connect sends it: the handler may set it until then.
        let headerSent = false;
        const sendHeaderOnce = () => {
          if (!headerSent) sendHeader(call, response.header);
          headerSent = true;
        };
        for await (const message of response.message) {
          sendHeaderOnce();
          // Backpressure: a slow reader (a large recording file) is not buffered in memory.
          if (!call.write(message)) await once(call, "drain");
        }
        sendHeaderOnce();
        call.end(metadataFromHeaders(response.trailer));
      } catch (error) {
        // The interceptors hide errors thrown before the first message; not those thrown while streaming.
        if (!(error instanceof ConnectError)) logger.error({ err: error, procedure: methodPath(method) }, "unhandled error in RPC");
        call.emit("error", grpcJsStatusOf(error));
      } finally {
        context.abort();
      }
    })();
  };
}

async function* outputOf(method: DescMethod, messages: AsyncIterable<unknown>): AsyncIterable<Message> {
  for await (const message of messages) yield asMessage(method.output, message);
}

async function* single(message: Message): AsyncIterable<Message> {
  yield message;
}

/** The HandlerContext Connect builds for a call: deadline, request headers, and an abort when the caller goes. */
function handlerContextOf(call: AnyCall, method: DescMethod) {
  const deadline = call.getDeadline();
  const deadlineMs = deadline instanceof Date ? deadline.getTime() : deadline;
  const context = createHandlerContext({
    service: method.parent,
    method,
    protocolName: "grpc",
    requestMethod: "POST",
    url: methodPath(method),
    timeoutMs: Number.isFinite(deadlineMs) ? deadlineMs - Date.now() : undefined,
    requestHeader: headersFromMetadata(call.metadata),
  });
  // grpc-js emits "cancelled" after every call, answered ones too: by then the call's teardown
  // (context.abort()) has aborted the signal, and no error object is built for nothing.
  call.once("cancelled", () => {
    if (!context.signal.aborted) context.abort(new ConnectError("the caller cancelled the call", Code.Canceled));
  });
  return context;
}

function requestCommon(context: HandlerContext) {
  return {
    service: context.service,
    requestMethod: context.requestMethod,
    url: context.url,
    signal: context.signal,
    header: context.requestHeader,
    contextValues: context.values,
  };
}

/** The context as the interceptors left the request (Connect's own merge). */
function withRequest(context: HandlerContext, request: UnaryRequest | StreamRequest): HandlerContext {
  return { ...context, service: request.service, requestHeader: request.header, signal: request.signal, values: request.contextValues };
}

function sendHeader(call: AnyCall, header: Headers) {
  const metadata = metadataFromHeaders(header);
  if (Object.keys(metadata.getMap()).length > 0) call.sendMetadata(metadata);
}
