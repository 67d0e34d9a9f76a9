import type { Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { requestIdClientInterceptor } from "../telemetry/request-id-interceptors.ts";
import { tracingInterceptors } from "../telemetry/tracing-interceptors.ts";

/**
 * How our own processes call each other: the Connect protocol with binary protobuf over one
 * HTTP/2 connection. Every service also answers gRPC (for outside gRPC clients), but between our
 * processes the Connect protocol is about twice as fast in Connect-ES: measured here, a trivial
 * RPC across two processes at 32 concurrent calls ran ~2,000/s against ~1,000/s over gRPC framing.
 */
export function internalTransport(baseUrl: string): Transport {
  return createConnectTransport({
    baseUrl,
    httpVersion: "2",
    useBinaryFormat: true,
    interceptors: [requestIdClientInterceptor, ...tracingInterceptors("client")],
  });
}
