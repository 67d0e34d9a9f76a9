import * as grpc from "@grpc/grpc-js";
import type { DescMessage, DescMethodStreaming, DescMethodUnary, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import {
  ConnectError,
  createContextValues,
  type ContextValues,
  type Interceptor,
  type StreamRequest,
  type StreamResponse,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import {
  applyInterceptors,
  asMessage,
  connectErrorOf,
  type HeadersInit,
  grpcJsMethodDefinition,
  headersFromMetadata,
  metadataFromHeaders,
  methodPath,
} from "./bridge.ts";

type Message = MessageShape<DescMessage>;

// A caller that gives no signal gets this one, never aborted: no AbortController per call.
const NEVER_ABORTED = new AbortController().signal;

/**
 * A Connect-ES Transport that makes its calls with a @grpc/grpc-js channel (decision 0018), so a
 * `createClient(Service, transport)` call site does not change. `target` is a grpc-js target
 * (`host:port`, `dns:///name:port`). Connect interceptors run around each call as they would on a
 * Connect transport; errors are the ConnectErrors a Connect transport would throw.
 * grpc-js itself sends again, once, a call the server refused unprocessed (a draining server's
 * GOAWAY), so no retry interceptor is needed here. A call that names no timeout gets
 * `defaultTimeoutMs`, as with Connect-ES's option of that name.
 */
export function grpcJsTransport(target: string, interceptors: readonly Interceptor[], defaultTimeoutMs?: number): Transport & { close(): void } {
  const client = new grpc.Client(target, grpc.credentials.createInsecure(), {
    // Our messages are small; a recording file streams in chunks well under this.
    "grpc.max_receive_message_length": 16 * 1024 * 1024,
  });
  const url = (path: string) => `grpc://${target}${path}`;
  // As in Connect-ES, a timeout of 0 or less means none (a recording download may take long).
  const callOptions = (timeoutMs = defaultTimeoutMs): grpc.CallOptions =>
    timeoutMs === undefined || timeoutMs <= 0 ? {} : { deadline: Date.now() + timeoutMs };
  const cancelOn = (signal: AbortSignal, call: grpc.Call) => {
    if (signal === NEVER_ABORTED) return;
    if (signal.aborted) call.cancel();
    else signal.addEventListener("abort", () => call.cancel(), { once: true });
  };

  return {
    close: () => client.close(),

    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      const definition = grpcJsMethodDefinition(method);
      const send = (request: UnaryRequest<I, O>) =>
        new Promise<UnaryResponse<I, O>>((resolve, reject) => {
          let responseHeader = new Headers();
          const call = client.makeUnaryRequest<Message, Message>(
            definition.path,
            definition.requestSerialize,
            definition.responseDeserialize,
            request.message,
            metadataFromHeaders(request.header),
            callOptions(timeoutMs),
            (error, message) => {
              if (error) return reject(connectErrorOf(error));
              resolve({ stream: false, service: method.parent, method, header: responseHeader, trailer, message: message as MessageShape<O> });
            },
          );
          call.on("metadata", (metadata) => (responseHeader = headersFromMetadata(metadata)));
          const trailer = trailerOf(call);
          cancelOn(request.signal, call);
        });
      const request: UnaryRequest<I, O> = {
        stream: false,
        message: asMessage(method.input, input),
        method,
        ...requestCommon(method.parent, url(definition.path), signal, header, contextValues),
      };
      return applyInterceptors(send, interceptors)(request);
    },

    async stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
      contextValues?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      if (method.methodKind !== "server_streaming") throw new ConnectError(`${methodPath(method)}: only server streaming is carried over grpc-js here`);
      const definition = grpcJsMethodDefinition(method);
      const send = async (request: StreamRequest<I, O>): Promise<StreamResponse<I, O>> => {
        let only: Message | undefined;
        for await (const message of request.message) only = message;
        const call = client.makeServerStreamRequest<Message, Message>(
          definition.path,
          definition.requestSerialize,
          definition.responseDeserialize,
          only!,
          metadataFromHeaders(request.header),
          callOptions(timeoutMs),
        );
        cancelOn(request.signal, call);
        const trailer = trailerOf(call);
        // As a Connect transport does, answer once the response header is in (or the call failed).
        const responseHeader = await new Promise<Headers>((resolve, reject) => {
          call.once("metadata", (metadata) => resolve(headersFromMetadata(metadata)));
          call.once("error", (error: grpc.ServiceError) => reject(connectErrorOf(error)));
          // A trailers-only answer (no message at all) has no header of its own.
          call.once("status", () => resolve(new Headers()));
        });
        return { stream: true, service: method.parent, method, header: responseHeader, trailer, message: messagesOf<O>(call) };
      };
      const request: StreamRequest<I, O> = {
        stream: true,
        message: messagesIn(method.input, input),
        method,
        ...requestCommon(method.parent, url(definition.path), signal, header, contextValues),
      };
      return applyInterceptors(send, interceptors)(request);
    },
  };
}

/** The call's trailer, filled when its status arrives (before the caller's await resumes). */
function trailerOf(call: grpc.Call): Headers {
  const trailer = new Headers();
  call.on("status", (status: grpc.StatusObject) => headersFromMetadata(status.metadata).forEach((value, key) => trailer.append(key, value)));
  return trailer;
}

function requestCommon(
  service: DescMethodUnary["parent"],
  url: string,
  signal: AbortSignal | undefined,
  header: HeadersInit | undefined,
  contextValues: ContextValues | undefined,
) {
  return {
    service,
    requestMethod: "POST",
    url,
    signal: signal ?? NEVER_ABORTED,
    header: new Headers(header),
    contextValues: contextValues ?? createContextValues(),
  };
}

async function* messagesIn<I extends DescMessage>(schema: I, input: AsyncIterable<MessageInitShape<I>>): AsyncIterable<MessageShape<I>> {
  for await (const message of input) yield asMessage(schema, message);
}

async function* messagesOf<O extends DescMessage>(call: grpc.ClientReadableStream<Message>): AsyncIterable<MessageShape<O>> {
  try {
    for await (const message of call) yield message as MessageShape<O>;
  } catch (error) {
    throw "code" in (error as object) ? connectErrorOf(error as grpc.ServiceError) : error;
  }
}
