import type http2 from "node:http2";
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { requestIdClientInterceptor } from "../telemetry/request-id-interceptors.ts";
import { tracingInterceptors } from "../telemetry/tracing-interceptors.ts";
import { grpcJsTransport } from "./grpc-js/transport.ts";
import { retryRefusedStream } from "./refused-stream-retry.ts";

/** The scheme of a service URL served by @grpc/grpc-js (a service's INTERNAL_GRPC_PORT). */
export const GRPC_JS_SCHEME = "grpc:";

export interface InternalTransportOptions {
  /**
   * The deadline of a call that names no `timeoutMs` (Connect-ES's `defaultTimeoutMs`, kept on the
   * grpc-js transport too). A call's own `timeoutMs` wins; 0 or less there means none. Unset: a
   * call that names none has none.
   */
  defaultTimeoutMs?: number;
}

/**
 * How our own processes call each other. A `grpc://host:port` URL is a service's grpc-js port
 * (INTERNAL_GRPC_PORT): the gRPC protocol through @grpc/grpc-js on both ends, about 410 µs of CPU
 * less per call than Connect (decision 0018); the gateway calls meeting and webhook that way.
 * An `http://` URL is a service's main port (GRPC_PORT): the Connect protocol with binary protobuf over one
 * HTTP/2 connection. Every service also answers gRPC (for outside gRPC clients), but between our
 * processes the Connect protocol is about twice as fast in Connect-ES: measured here, a trivial
 * RPC across two processes at 32 concurrent calls ran ~2,000/s against ~1,000/s over gRPC framing.
 *
 * A call the server refused unprocessed (a stream it never read, while it stops) is sent once more
 * (refused-stream-retry.ts).
 *
 * No compression (`acceptCompression: []`): by default a Connect client accepts gzip and the server
 * then gzips every response over 1 KB, which on loopback or a cluster network costs CPU on both
 * sides and saves nothing (zlib was ~6% of the gateway's and webhook's CPU listing 20 webhooks).
 */
export function internalTransport(baseUrl: string, options: InternalTransportOptions = {}): Transport {
  if (new URL(baseUrl).protocol === GRPC_JS_SCHEME) {
    return grpcJsTransport(new URL(baseUrl).host, [requestIdClientInterceptor, ...tracingInterceptors("client")], options.defaultTimeoutMs);
  }
  return createConnectTransport({
    baseUrl,
    defaultTimeoutMs: options.defaultTimeoutMs,
    httpVersion: "2",
    useBinaryFormat: true,
    acceptCompression: [],
    sessionManager: new GoawaySafeSessionManager(baseUrl),
    // The retry innermost: the request id and the span cover both attempts.
    interceptors: [requestIdClientInterceptor, ...tracingInterceptors("client"), retryRefusedStream],
  });
}

/**
 * Connect-ES's HTTP/2 session manager, with an error listener kept on every session it uses.
 * connect-node 2.2.0 answers a GOAWAY on an idle session with `destroy(error)`, and the "error"
 * event can come after the manager has removed its own listeners: an unhandled 'error' event
 * ("received GOAWAY without any open streams") then ends the calling process. A server sends that
 * GOAWAY whenever it drains or stops, so on the local Kubernetes cluster every rollout of
 * identity, meeting or webhook crashed gateways. The manager still sees the session close and
 * opens a new one for the next call; the listener only keeps the process alive.
 */
class GoawaySafeSessionManager extends Http2SessionManager {
  private readonly guarded = new WeakSet<http2.ClientHttp2Session>();

  override async request(...args: Parameters<Http2SessionManager["request"]>): Promise<http2.ClientHttp2Stream> {
    const stream = await super.request(...args);
    const session = stream.session as http2.ClientHttp2Session | undefined;
    if (session && !this.guarded.has(session)) {
      this.guarded.add(session);
      session.on("error", () => {});
    }
    return stream;
  }
}
