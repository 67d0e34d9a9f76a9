// @svc/platform/grpc: serving a service over Connect and gRPC, and calling one (internalTransport).
export * from "./server.ts";
export * from "./internal-transport.ts";
