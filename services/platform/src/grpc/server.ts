import http2 from "node:http2";
import type { DescFile, DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { file_grpc_reflection_v1_reflection, ServerReflection } from "@svc/proto/grpc/reflection/v1/reflection_pb";
import { file_health_v1_health, Health } from "@svc/proto/health/v1/health_pb";
import type { Logger } from "../logger.ts";
import type { ShutdownDrain } from "../shutdown-drain.ts";
import { requestIdServerInterceptor } from "../telemetry/request-id-interceptors.ts";
import { rpcDebugLog } from "../telemetry/rpc-debug-log.ts";
import { tracingInterceptors } from "../telemetry/tracing-interceptors.ts";
import type { Registry } from "../telemetry/metrics-registry.ts";
import { rpcMetrics } from "../telemetry/rpc-metrics.ts";
import { startGrpcJsServer } from "./grpc-js/server.ts";
import { registerHealth } from "./health.ts";
import { registerReflection } from "./reflection.ts";

export interface ServerOptions {
  name: string;
  host: string;
  port: number;
  logger: Logger;
  /** The services this process implements, for health and reflection. */
  services: DescService[];
  routes: (router: ConnectRouter) => void;
  /** Asked by every health check. */
  isServing: () => Promise<boolean>;
  /** The process's metrics registry: every RPC answered is recorded in it (rpc_server_duration_seconds). */
  metrics?: Registry;
  /** Sends the HTTP/2 sessions elsewhere (GOAWAY) while the process drains before stopping. */
  drain?: ShutdownDrain;
  /**
   * When set, the same services and health are also served on this port by @grpc/grpc-js, gRPC
   * only, for the platform's own callers (`grpc://` URLs, internal-transport.ts; decision 0018).
   */
  internalPort?: number;
}

/**
 * The largest request message a server reads (1 MiB). Every RPC's request is small (the largest,
 * a meeting with 100 attendees, is a few KB); without a limit Connect reads up to 4 GiB into memory.
 */
export const READ_MAX_BYTES = 1024 * 1024;

export interface RunningServer {
  port: number;
  /** The grpc-js port, when `internalPort` was given. */
  internalPort?: number;
  close(): Promise<void>;
}

/**
 * Serves Connect, gRPC and gRPC-Web on one cleartext HTTP/2 port, plus grpc.health.v1 and
 * grpc.reflection.v1; with `internalPort`, the same services and health through @grpc/grpc-js on
 * that port too (grpc-js/server.ts), behind the same interceptors. Errors that are not ConnectErrors are logged and answered as a generic
 * INTERNAL, so no stack trace or SQL message ever reaches a caller.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const serviceNames = options.services.map((service) => service.typeName);
  const files = new Set<DescFile>([...options.services.map((service) => service.file), file_health_v1_health, file_grpc_reflection_v1_reflection]);
  // Outermost first: the request id and the span are in place for everything after them.
  const interceptors = [
    requestIdServerInterceptor,
    ...tracingInterceptors("server"),
    ...(options.metrics ? [rpcMetrics(options.metrics)] : []),
    // Installed only at the debug level: an RPC pays nothing for a log line it would not write.
    ...(options.logger.isLevelEnabled("debug") ? [rpcDebugLog(options.logger)] : []),
    hideInternalErrors(options.logger),
  ];
  const servicesWithHealth = (router: ConnectRouter) => {
    options.routes(router);
    registerHealth(router, serviceNames, options.isServing);
  };
  const handler = connectNodeAdapter({
    grpc: true,
    grpcWeb: true,
    connect: true,
    readMaxBytes: READ_MAX_BYTES,
    interceptors,
    routes(router) {
      servicesWithHealth(router);
      registerReflection(router, [...files], [...serviceNames, Health.typeName, ServerReflection.typeName]);
    },
  });
  const server = http2.createServer(handler);
  options.drain?.http2Server(server);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  options.logger.info({ host: options.host, port }, `${options.name} listening (gRPC, gRPC-Web, Connect)`);
  const internal =
    options.internalPort === undefined
      ? undefined
      : await startGrpcJsServer({ ...options, port: options.internalPort, routes: servicesWithHealth, interceptors, readMaxBytes: READ_MAX_BYTES }).catch(
          async (error: unknown) => {
            await closeConnectServer();
            throw error;
          },
        );
  function closeConnectServer() {
    return new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Ask open HTTP/2 sessions to finish their in-flight streams and accept no new ones.
      for (const session of sessions) session.close();
    });
  }
  return {
    port,
    internalPort: internal?.port,
    close: async () => {
      await Promise.all([closeConnectServer(), internal?.close()]);
    },
  };
}

function hideInternalErrors(logger: Logger): Interceptor {
  return (next) => async (request) => {
    try {
      return await next(request);
    } catch (error) {
      if (error instanceof ConnectError) throw error;
      logger.error({ err: error, procedure: request.url }, "unhandled error in RPC");
      throw new ConnectError("internal error", Code.Internal);
    }
  };
}
