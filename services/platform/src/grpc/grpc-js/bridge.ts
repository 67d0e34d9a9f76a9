import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, isMessage, toBinary, type DescMessage, type DescMethod, type MessageShape } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  decodeBinaryHeader,
  encodeBinaryHeader,
  type Interceptor,
  type StreamRequest,
  type StreamResponse,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";

/**
 * What Connect-ES and @grpc/grpc-js say differently, translated once for both ends of the grpc-js
 * hop (server.ts, transport.ts): method paths and protobuf-es (de)serializers,
 * metadata as Headers, errors as ConnectErrors, and Connect interceptors run around a call. The
 * status codes are the same numbers in both (Connect's Code is gRPC's).
 */

type MethodDefinition = grpc.MethodDefinition<MessageShape<DescMessage>, MessageShape<DescMessage>>;
const definitions = new WeakMap<DescMethod, MethodDefinition>();

/** One method's path and (de)serializers, made once per method (a client asks on every call). */
export function grpcJsMethodDefinition(method: DescMethod): MethodDefinition {
  let definition = definitions.get(method);
  if (!definition) definitions.set(method, (definition = methodDefinition(method)));
  return definition;
}

function methodDefinition(method: DescMethod): MethodDefinition {
  return {
    path: methodPath(method),
    originalName: method.localName,
    requestStream: method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
    responseStream: method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming",
    requestSerialize: (message) => Buffer.from(toBinary(method.input, message)),
    requestDeserialize: (bytes) => fromBinary(method.input, bytes),
    responseSerialize: (message) => Buffer.from(toBinary(method.output, message)),
    responseDeserialize: (bytes) => fromBinary(method.output, bytes),
  };
}

/** `/svc.meeting.v1.MeetingService/CreateMeeting`: the same path on either protocol. */
export function methodPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

/** A message as given (already one) or made from its init shape, as Connect does for both ends. */
export function asMessage<Desc extends DescMessage>(schema: Desc, value: unknown): MessageShape<Desc> {
  return isMessage(value, schema) ? value : create(schema, value as never);
}

type AnyCall = Parameters<Interceptor>[0];

/**
 * Connect interceptors around `call`, the first outermost (as Connect applies them). An
 * interceptor hands on the kind of request it was given, so the call keeps its own types.
 */
export function applyInterceptors<Request extends UnaryRequest | StreamRequest, Response extends UnaryResponse | StreamResponse>(
  call: (request: Request) => Promise<Response>,
  interceptors: readonly Interceptor[],
): (request: Request) => Promise<Response> {
  const wrapped = interceptors.reduceRight((next, interceptor) => interceptor(next), call as unknown as AnyCall);
  return wrapped as unknown as (request: Request) => Promise<Response>;
}

/** What a Transport is given as a call's request headers. */
export type HeadersInit = ConstructorParameters<typeof Headers>[0];

// Set by grpc-js or HTTP/2 itself on every call: never copied from one side's Headers to the other's.
const TRANSPORT_KEYS = new Set(["content-type", "te", "user-agent", "accept-encoding", "content-length"]);
const isTransportKey = (key: string) => key.startsWith(":") || key.startsWith("grpc-") || TRANSPORT_KEYS.has(key);

export function headersFromMetadata(metadata: grpc.Metadata | undefined): Headers {
  const headers = new Headers();
  if (!metadata) return headers;
  // getMap() names each key once (with its first value); every value of it is copied.
  for (const key of Object.keys(metadata.getMap())) {
    if (isTransportKey(key)) continue;
    for (const value of metadata.get(key)) headers.append(key, typeof value === "string" ? value : encodeBinaryHeader(value));
  }
  return headers;
}

// What grpc-js accepts in a text metadata value: printable ASCII (it throws on anything else).
const CARRIABLE_VALUE = /^[ -~]*$/;

/**
 * Headers as grpc-js metadata. A text value gRPC cannot carry (a control character, a byte above
 * 0x7E, which HTTP/1.1 and Connect let through) fails the call with INVALID_ARGUMENT naming the
 * header, never its value: grpc-js's own error would quote it, and it may be a credential.
 */
export function metadataFromHeaders(headers: Headers | undefined): grpc.Metadata {
  const metadata = new grpc.Metadata();
  headers?.forEach((value, key) => {
    if (isTransportKey(key)) return;
    // Headers joins repeated values with ", "; binary values are base64 (encodeBinaryHeader).
    if (key.endsWith("-bin")) metadata.add(key, Buffer.from(decodeBinaryHeader(value)));
    else if (CARRIABLE_VALUE.test(value)) metadata.add(key, value);
    else throw new ConnectError(`The ${key} header has characters gRPC metadata cannot carry (printable ASCII only)`, Code.InvalidArgument);
  });
  return metadata;
}

/** A ConnectError as a grpc-js status; anything else (a bug) as a bare INTERNAL, never its message. */
export function grpcJsStatusOf(error: unknown): Partial<grpc.StatusObject> {
  if (!(error instanceof ConnectError)) return { code: grpc.status.INTERNAL, details: "internal error" };
  const status = { code: error.code as number as grpc.status, details: error.rawMessage };
  try {
    return { ...status, metadata: metadataFromHeaders(error.metadata) };
  } catch {
    return status; // metadata gRPC cannot carry: the error still goes out, without it
  }
}

/** A grpc-js error status as the ConnectError a Connect transport would have thrown for it. */
export function connectErrorOf(status: Pick<grpc.StatusObject, "code" | "details"> & { metadata?: grpc.Metadata }): ConnectError {
  const code = status.code >= Code.Canceled && status.code <= Code.Unauthenticated ? (status.code as number as Code) : Code.Unknown;
  return new ConnectError(status.details, code, headersFromMetadata(status.metadata));
}
