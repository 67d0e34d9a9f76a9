import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus as ServingStatus, HealthCheckResponseSchema } from "@svc/proto/health/v1/health_pb";
import { afterEach, describe, expect, it } from "vitest";
import { internalTransport } from "./internal-transport.ts";

/**
 * A real HTTP/2 Connect server whose first `refusals` streams are reset with the given code
 * before the handler sees them; `handled` counts the calls the service really processed.
 */
async function serverThatResets(refusals: number, code: number) {
  const state = { refusals, handled: 0, reset: 0 };
  const handler = connectNodeAdapter({
    routes: (router) =>
      router.service(Health, {
        async check() {
          state.handled++;
          return create(HealthCheckResponseSchema, { status: ServingStatus.SERVING });
        },
        async *watch() {},
      }),
  });
  const server = http2.createServer((request, response) => {
    if (state.refusals > 0) {
      state.refusals--;
      state.reset++;
      request.stream.close(code);
      return;
    }
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { state, client: createClient(Health, internalTransport(url)), close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("internal calls refused unprocessed (REFUSED_STREAM)", () => {
  it("are sent once more, and the service processes them exactly once", async () => {
    const server = await serverThatResets(1, http2.constants.NGHTTP2_REFUSED_STREAM);
    servers.push(server);
    const answer = await server.client.check({}, { timeoutMs: 5_000 });
    expect(answer.status).toBe(ServingStatus.SERVING);
    expect(server.state).toEqual({ refusals: 0, handled: 1, reset: 1 });
  });

  it("refused twice, fail as Unavailable (a 503 at the gateway, not a 500), after two attempts", async () => {
    const server = await serverThatResets(5, http2.constants.NGHTTP2_REFUSED_STREAM);
    servers.push(server);
    const error = await server.client.check({}, { timeoutMs: 5_000 }).catch((caught: unknown) => ConnectError.from(caught));
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.Unavailable);
    expect(server.state).toMatchObject({ handled: 0, reset: 2 });
  });

  it("are not repeated when the reset says nothing about processing (CANCEL, INTERNAL_ERROR)", async () => {
    for (const code of [http2.constants.NGHTTP2_CANCEL, http2.constants.NGHTTP2_INTERNAL_ERROR]) {
      const server = await serverThatResets(1, code);
      servers.push(server);
      await expect(server.client.check({}, { timeoutMs: 5_000 })).rejects.toBeInstanceOf(ConnectError);
      expect(server.state).toMatchObject({ handled: 0, reset: 1 });
    }
  });
});
