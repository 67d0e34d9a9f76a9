import http2 from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { HealthCheckRequestSchema } from "@svc/proto/health/v1/health_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../logger.ts";
import { READ_MAX_BYTES, startServer, type RunningServer } from "./server.ts";

// A real server on port 0 and a plain HTTP/2 gRPC call: how much of a request message it reads.
let server: RunningServer;
let client: http2.ClientHttp2Session;
beforeAll(async () => {
  server = await startServer({
    name: "test",
    host: "127.0.0.1",
    port: 0,
    logger: createLogger("test", "silent"),
    services: [],
    routes: () => undefined,
    isServing: async () => true,
  });
  client = http2.connect(`http://127.0.0.1:${server.port}`);
});
afterAll(async () => {
  client?.destroy(); // the refused upload may still be in flight
  await server?.close();
});

/** grpc.health.v1.Health/Check with a service name of `length` characters; answers the grpc-status. */
function check(length: number): Promise<number> {
  const message = toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema, { service: "x".repeat(length) }));
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return new Promise((resolve, reject) => {
    const stream = client.request({ ":method": "POST", ":path": "/grpc.health.v1.Health/Check", "content-type": "application/grpc", te: "trailers" });
    // Answered as soon as the status arrives: a server that refused the message stops reading the upload.
    const settle = (headers: http2.IncomingHttpHeaders) => {
      if (headers["grpc-status"] === undefined) return;
      resolve(Number(headers["grpc-status"]));
      stream.close(http2.constants.NGHTTP2_CANCEL);
    };
    stream.on("response", settle);
    stream.on("trailers", settle);
    stream.on("close", () => reject(new Error("closed without a grpc-status")));
    stream.on("error", () => undefined); // the server may reset the upload it refused
    stream.resume();
    stream.end(frame);
  });
}

describe("request size limit of every Connect/gRPC server", () => {
  it("refuses a request message over 1 MiB with RESOURCE_EXHAUSTED before handling it", async () => {
    expect(READ_MAX_BYTES).toBe(1024 * 1024);
    expect(await check(2 * 1024 * 1024)).toBe(Code.ResourceExhausted);
  });

  it("reads a small message as before (an unknown service name is NOT_FOUND)", async () => {
    expect(await check(10)).toBe(Code.NotFound);
  });
});
