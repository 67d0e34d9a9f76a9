import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { histogramIn, type Registry } from "./metrics-registry.ts";

/**
 * Duration, rate and errors of every RPC a server answers: one histogram labelled by service,
 * method and gRPC status code (its `_count` is the request rate, the non-zero codes the errors).
 * For a server-streaming RPC the duration ends when the handler returns its stream.
 */
export function rpcMetrics(registry: Registry): Interceptor {
  const duration = histogramIn(registry, "rpc_server_duration_seconds", "Time to answer an RPC, by service, method and gRPC status code.", [
    "rpc_service",
    "rpc_method",
    "rpc_grpc_status_code",
  ]);
  return (next) => async (request) => {
    const stop = duration.startTimer({ rpc_service: request.service.typeName, rpc_method: request.method.name });
    try {
      const response = await next(request);
      stop({ rpc_grpc_status_code: "0" });
      return response;
    } catch (error) {
      stop({ rpc_grpc_status_code: String(ConnectError.from(error).code) });
      throw error;
    }
  };
}
