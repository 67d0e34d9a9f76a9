import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createShutdownDrain } from "./shutdown-drain.ts";

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function listening<T extends http.Server | http2.Http2Server>(server: T): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** One GET on a kept-alive connection, returning the Connection header the server sent. */
function get(agent: http.Agent, port: number): Promise<{ connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: "/", agent }, (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => resolve({ connection: response.headers.connection, body }));
      })
      .on("error", reject);
  });
}

describe("createShutdownDrain", () => {
  it("HTTP/1.1: answers keep connections alive until the drain starts, then every answer says Connection: close; the drain lasts its time", async () => {
    const drain = createShutdownDrain(300);
    const server = http.createServer((_request, response) => response.end("ok"));
    drain.httpServer(server);
    const port = await listening(server);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    closers.push(
      () => agent.destroy(),
      () => server.close(),
    );

    expect(await get(agent, port)).toEqual({ connection: "keep-alive", body: "ok" });
    expect(drain.draining).toBe(false);
    const started = Date.now();
    const drained = drain.drain();
    expect(drain.draining).toBe(true);
    // Still served during the drain, but the client is told to reconnect (elsewhere).
    expect(await get(agent, port)).toEqual({ connection: "close", body: "ok" });
    expect(await get(agent, port)).toEqual({ connection: "close", body: "ok" });
    await drained;
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("HTTP/2: open sessions get a graceful GOAWAY (no error, no stream refused) and the call in flight completes", async () => {
    const drain = createShutdownDrain(0);
    let release: () => void = () => {};
    const server = http2.createServer();
    server.on("stream", (stream) => {
      stream.respond({ ":status": 200 });
      release = () => stream.end("done");
    });
    drain.http2Server(server);
    const port = await listening(server);
    const client = http2.connect(`http://127.0.0.1:${port}`);
    closers.push(
      () => client.destroy(),
      () => server.close(),
    );
    const goaway = new Promise<[number, number]>((resolve) => client.once("goaway", (code: number, lastStreamId: number) => resolve([code, lastStreamId])));

    const request = client.request({ ":path": "/" });
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    const ended = new Promise((resolve) => request.on("end", resolve));
    await new Promise((resolve) => request.once("response", resolve));
    await drain.drain();
    expect(await goaway).toEqual([http2.constants.NGHTTP2_NO_ERROR, 2 ** 31 - 1]);
    release();
    await ended;
    expect(body).toBe("done");
  });

  it("HTTP/2: a session opened during the drain is served its first call, then sent a GOAWAY", async () => {
    const drain = createShutdownDrain(0);
    const server = http2.createServer();
    server.on("stream", (stream) => {
      stream.respond({ ":status": 200 });
      stream.end("served");
    });
    drain.http2Server(server);
    const port = await listening(server);
    await drain.drain();
    const client = http2.connect(`http://127.0.0.1:${port}`);
    closers.push(
      () => client.destroy(),
      () => server.close(),
    );
    const goaway = new Promise<number>((resolve) => client.once("goaway", (code: number) => resolve(code)));
    const request = client.request({ ":path": "/" });
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    await new Promise((resolve) => request.on("end", resolve));
    expect(body).toBe("served");
    expect(await goaway).toBe(http2.constants.NGHTTP2_NO_ERROR);
  });
});
