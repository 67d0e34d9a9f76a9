import { setTimeout as sleep } from "node:timers/promises";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from "@svc/proto/health/v1/health_pb";
import { RecordingFileService, ReadRecordingFileResponseSchema } from "@svc/proto/svc/meeting/v1/recording_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../logger.ts";
import { createShutdownDrain } from "../../shutdown-drain.ts";
import { currentRequestId, withRequestId } from "../../telemetry/request-context.ts";
import { internalTransport } from "../internal-transport.ts";
import { startServer, type RunningServer } from "../server.ts";

// One real server with both ports (startServer with internalPort), and every behaviour asked of
// both: through the grpc-js transport to the grpc-js port, and through the Connect transport to
// the Connect port. A handler and a caller must not be able to tell them apart.

const CHUNK = 64 * 1024;
let serving: () => Promise<boolean> = async () => true;
const cancelled: string[] = [];
const drain = createShutdownDrain(0);
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({
    name: "test",
    host: "127.0.0.1",
    port: 0,
    internalPort: 0,
    logger: createLogger("test", "silent"),
    services: [RecordingFileService],
    isServing: () => serving(),
    drain,
    routes: (router) =>
      router.service(RecordingFileService, {
        async *readRecordingFile(request, context) {
          if (request.token === "denied") throw new ConnectError("the link has expired", Code.PermissionDenied, { "x-size": "42" });
          if (request.token === "bug") throw new Error("relation recordings does not exist (a secret SQL message)");
          context.responseHeader.set("x-served-by", "test");
          // What the handler saw of the call: a header, the deadline left.
          yield { part: { case: "head", value: { contentType: context.requestHeader.get("x-test") ?? "", sizeBytes: BigInt(context.timeoutMs() ?? -1) } } };
          if (request.token === "wait") {
            await new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true }));
            cancelled.push(request.range);
            return;
          }
          const chunks = Number(request.range || "0");
          for (let index = 0; index < chunks; index++)
            yield create(ReadRecordingFileResponseSchema, { part: { case: "chunk", value: new Uint8Array(CHUNK).fill(index) } });
          context.responseTrailer.set("x-chunks", String(chunks));
        },
      }),
  });
});
afterAll(async () => {
  await server?.close();
});

const urls = () => ({ grpc: `grpc://127.0.0.1:${server.internalPort}`, connect: `http://127.0.0.1:${server.port}` });

describe.each(["grpc", "connect"] as const)("a call through the %s transport", (kind) => {
  const health = () => createClient(Health, internalTransport(urls()[kind]));
  const files = () => createClient(RecordingFileService, internalTransport(urls()[kind]));

  it("answers a unary call, and NOT_FOUND with the service's own message", async () => {
    expect((await health().check({})).status).toBe(ServingStatus.SERVING);
    const error = await health()
      .check({ service: "no.such.Service" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.NotFound);
    expect((error as ConnectError).rawMessage).toBe("unknown service no.such.Service");
  });

  it("answers an error that is not a ConnectError as a bare INTERNAL, never its message", async () => {
    serving = async () => {
      throw new Error("password authentication failed for user svc");
    };
    try {
      const error = (await health()
        .check({})
        .catch((caught: unknown) => caught)) as ConnectError;
      expect(error.code).toBe(Code.Internal);
      expect(error.rawMessage).toBe("internal error");
    } finally {
      serving = async () => true;
    }
  });

  it("ends a call past its deadline with DEADLINE_EXCEEDED", async () => {
    serving = () => sleep(1_000).then(() => true);
    try {
      const error = (await health()
        .check({}, { timeoutMs: 100 })
        .catch((caught: unknown) => caught)) as ConnectError;
      expect(error.code).toBe(Code.DeadlineExceeded);
    } finally {
      serving = async () => true;
    }
  });

  it("gives a call that names no timeout the transport's default, and a call that names one its own", async () => {
    serving = () => sleep(300).then(() => true);
    try {
      const transport = internalTransport(urls()[kind], { defaultTimeoutMs: 100 });
      const error = (await createClient(Health, transport)
        .check({})
        .catch((caught: unknown) => caught)) as ConnectError;
      expect(error.code).toBe(Code.DeadlineExceeded);
      expect((await createClient(Health, transport).check({}, { timeoutMs: 5_000 })).status).toBe(ServingStatus.SERVING);
    } finally {
      serving = async () => true;
    }
  });

  it("carries the caller's request id to the handler", async () => {
    let seen: string | undefined;
    serving = async () => {
      seen = currentRequestId();
      return true;
    };
    try {
      await withRequestId(`req-${kind}-1`, () => health().check({}));
      expect(seen).toBe(`req-${kind}-1`);
    } finally {
      serving = async () => true;
    }
  });

  it("streams every message in order, with the request's headers and deadline", async () => {
    const chunks = 40; // 2.5 MiB: more than one flow-control window, so backpressure is exercised
    const parts = [];
    for await (const part of files().readRecordingFile({ token: "ok", range: String(chunks) }, { headers: { "x-test": "seen" }, timeoutMs: 30_000 }))
      parts.push(part.part);
    const [head, ...rest] = parts;
    expect(head?.case).toBe("head");
    const value = head!.value as { contentType: string; sizeBytes: bigint };
    expect(value.contentType).toBe("seen");
    expect(Number(value.sizeBytes)).toBeGreaterThan(25_000);
    expect(Number(value.sizeBytes)).toBeLessThanOrEqual(30_000);
    expect(rest).toHaveLength(chunks);
    rest.forEach((part, index) => {
      expect(part.case).toBe("chunk");
      expect((part.value as Uint8Array).length).toBe(CHUNK);
      expect((part.value as Uint8Array)[CHUNK - 1]).toBe(index);
    });
  });

  it("takes a timeout of 0 as none, as Connect does", async () => {
    serving = () => sleep(50).then(() => true);
    try {
      expect((await health().check({}, { timeoutMs: 0 })).status).toBe(ServingStatus.SERVING);
    } finally {
      serving = async () => true;
    }
  });

  it("gives the response header and trailer to the caller's callbacks", async () => {
    let header: Headers | undefined;
    let trailer: Headers | undefined;
    for await (const part of files().readRecordingFile({ token: "ok", range: "1" }, { onHeader: (h) => (header = h), onTrailer: (t) => (trailer = t) }))
      void part;
    expect(header?.get("x-served-by")).toBe("test");
    expect(trailer?.get("x-chunks")).toBe("1");
  });

  it("fails a stream with the handler's code, message and metadata", async () => {
    const error = (await (async () => {
      for await (const part of files().readRecordingFile({ token: "denied" })) void part;
    })().catch((caught: unknown) => caught)) as ConnectError;
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toBe("the link has expired");
    expect(error.metadata.get("x-size")).toBe("42");
  });

  it("hides an unexpected error in a stream as INTERNAL", async () => {
    const error = (await (async () => {
      for await (const part of files().readRecordingFile({ token: "bug" })) void part;
    })().catch((caught: unknown) => caught)) as ConnectError;
    expect(error.code).toBe(Code.Internal);
    expect(error.rawMessage).not.toContain("SQL");
  });

  it("aborts the handler's signal when the caller cancels", async () => {
    const abort = new AbortController();
    const label = `${kind}-cancel`;
    const stream = files().readRecordingFile({ token: "wait", range: label }, { signal: abort.signal });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.part.case).toBe("head");
    abort.abort();
    await iterator.next().catch(() => undefined);
    const deadline = Date.now() + 5_000;
    while (!cancelled.includes(label) && Date.now() < deadline) await sleep(20);
    expect(cancelled).toContain(label);
  });
});

describe("a request header gRPC metadata cannot carry", () => {
  it("fails the call with INVALID_ARGUMENT naming the header, never quoting its value", async () => {
    const health = createClient(Health, internalTransport(urls().grpc));
    for (const value of ["key\twith-a-tab", "caf\u00e9-s3cr3t"]) {
      const error = (await health.check({}, { headers: { "idempotency-key": value } }).catch((caught: unknown) => caught)) as ConnectError;
      expect(error).toBeInstanceOf(ConnectError);
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.rawMessage).toContain("idempotency-key");
      expect(error.rawMessage).not.toContain(value);
    }
  });
});

describe("the grpc-js port while the process drains", () => {
  it("keeps answering: callers are sent to a new session, nothing in flight is lost", async () => {
    const health = createClient(Health, internalTransport(urls().grpc));
    expect((await health.check({})).status).toBe(ServingStatus.SERVING);
    const inFlight = health.check({});
    await drain.drain();
    expect((await inFlight).status).toBe(ServingStatus.SERVING);
    expect((await health.check({})).status).toBe(ServingStatus.SERVING);
  });
});
