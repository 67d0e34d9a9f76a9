import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSigningSecret, signingKey } from "../signing/signing-secret.ts";
import { createHttpSender, excerptText, USER_AGENT } from "./http-sender.ts";

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
}

/** A real local receiver whose behaviour each test picks by path. */
let server: http.Server;
let base: string;
const received: Received[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString(), path: req.url ?? "" });
      respond(req.url ?? "", res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

function respond(path: string, res: http.ServerResponse) {
  switch (path) {
    case "/ok":
      res.writeHead(204).end();
      break;
    case "/redirect":
      res.writeHead(302, { location: `${base}/ok` }).end();
      break;
    case "/hang":
      break; // never answers
    case "/slow-body":
      res.writeHead(200);
      res.write("partial"); // the body never ends
      break;
    case "/big":
      res.writeHead(500).end("é".repeat(5_000));
      break;
    case "/throttle":
      res.writeHead(429, { "retry-after": "30" }).end("slow down");
      break;
    default:
      res.writeHead(500).end("boom");
  }
}

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const secret = generateSigningSecret();
const message = (path: string) => ({
  url: `${base}${path}`,
  messageId: "0b8e5c1e-2f7a-4c55-9d0e-8a4f1b2c3d4e",
  body: '{"type":"webhook.test","timestamp":"2030-01-01T00:00:00.000Z","data":{}}',
  signingKeys: [signingKey(secret)],
});

describe("HTTP sender", () => {
  const sender = createHttpSender({ timeoutMs: 800, allowPrivateTargets: true });
  afterAll(() => sender.close());

  it("POSTs the body with Standard Webhooks headers a receiver verifies, and reports a 2xx as success", async () => {
    const outcome = await sender.send(message("/ok"));
    expect(outcome).toMatchObject({ succeeded: true, statusCode: 204, timedOut: false, responseExcerpt: "" });
    expect(outcome.error).toBeUndefined();
    const request = received.at(-1)!;
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["user-agent"]).toBe(USER_AGENT);
    expect(request.headers["webhook-id"]).toBe(message("/ok").messageId);
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toEqual(JSON.parse(message("/ok").body));
  });

  it("does not follow redirects: a 3xx is a failure and the Location is never requested", async () => {
    const before = received.length;
    const outcome = await sender.send(message("/redirect"));
    expect(outcome).toMatchObject({ succeeded: false, statusCode: 302, error: "redirect (HTTP 302) not followed" });
    expect(received.slice(before).map((r) => r.path)).toEqual(["/redirect"]);
  });

  it("times out a receiver that never answers, and one that never finishes its body", async () => {
    const hung = await sender.send(message("/hang"));
    expect(hung).toMatchObject({ succeeded: false, timedOut: true });
    expect(hung.statusCode).toBeUndefined();
    expect(hung.error).toMatch(/timed out after 800 ms/);
    const slow = await sender.send(message("/slow-body"));
    expect(slow).toMatchObject({ succeeded: false, timedOut: true });
  });

  it("never gives up on a receiver before its deadline, whenever the attempt starts", async () => {
    // Attempts started at different moments of undici's coarse timer ticks (half a second): its
    // own timeouts fired up to a tick early, so the deadline is the sender's own timer.
    const hung = await Promise.all(
      Array.from({ length: 6 }, async (_, index) => {
        await new Promise((resolve) => setTimeout(resolve, index * 90));
        return sender.send(message("/hang"));
      }),
    );
    for (const outcome of hung) expect(outcome).toMatchObject({ timedOut: true, error: "timed out after 800 ms" });
    expect(Math.min(...hung.map((outcome) => outcome.latencyMs))).toBeGreaterThanOrEqual(800);
  });

  it("keeps at most 1 KB of the response body as valid text", async () => {
    const outcome = await sender.send(message("/big"));
    expect(outcome).toMatchObject({ succeeded: false, statusCode: 500, error: "HTTP 500" });
    expect(Buffer.byteLength(outcome.responseExcerpt)).toBeLessThanOrEqual(1024);
    expect(outcome.responseExcerpt).toBe("é".repeat(512));
  });

  it("reports Retry-After on a 429", async () => {
    expect(await sender.send(message("/throttle"))).toMatchObject({ statusCode: 429, retryAfterSeconds: 30, responseExcerpt: "slow down" });
  });

  it("reports a connection error without a status", async () => {
    const outcome = await sender.send({ ...message("/ok"), url: "http://127.0.0.1:9/ok" });
    expect(outcome).toMatchObject({ succeeded: false, timedOut: false });
    expect(outcome.statusCode).toBeUndefined();
    expect(outcome.error).toMatch(/ECONNREFUSED/);
  });
});

describe("HTTP sender with the SSRF guard on", () => {
  const sender = createHttpSender({ timeoutMs: 800, allowPrivateTargets: false });
  afterAll(() => sender.close());

  it("refuses a literal loopback target without connecting", async () => {
    const before = received.length;
    const outcome = await sender.send(message("/ok"));
    expect(outcome.succeeded).toBe(false);
    expect(outcome.statusCode).toBeUndefined();
    expect(outcome.error).toMatch(/target refused: a loopback address \(127\.0\.0\.1\)/);
    expect(received.length).toBe(before);
  });

  it("refuses a name that resolves to loopback at connection time", async () => {
    const before = received.length;
    const port = new URL(base).port;
    const outcome = await sender.send({ ...message("/ok"), url: `http://localhost:${port}/ok` });
    expect(outcome.succeeded).toBe(false);
    expect(outcome.error).toMatch(/target refused: url host localhost resolves to a non-public address$/);
    expect(outcome.error).not.toContain("127.0.0.1");
    expect(received.length).toBe(before);
  });
});

describe("response excerpts", () => {
  it("never cut a character in half and drop NUL bytes", () => {
    expect(excerptText(Buffer.from("a\u0000b"))).toBe("ab");
    const text = excerptText(Buffer.from("x" + "€".repeat(400)));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024);
    expect(text.endsWith("€")).toBe(true);
  });
});
