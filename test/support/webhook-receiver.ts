import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One request a receiver got, checked with the `standardwebhooks` library. */
export interface ReceivedWebhook {
  /** The path the subscription was registered with, for example "/a". */
  path: string;
  id: string;
  timestamp: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** The verified, parsed payload; undefined when verification failed. */
  payload?: { type: string; timestamp: string; data: Record<string, unknown> };
  verificationError?: string;
  receivedAt: number;
}

/**
 * How the receiver answers a request: a status (and optional headers/body, optionally after a
 * delay), or "hang" (never answers).
 */
export type Answer = number | "hang" | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };

export interface WebhookReceiver {
  baseUrl: string;
  /** Each URL path verifies with its own subscription's secret. */
  useSecret(path: string, secret: string): void;
  /** How to answer requests to `path`; `attempt` counts requests with the same webhook-id (1-based). */
  answer(path: string, decide: (attempt: number, request: ReceivedWebhook) => Answer): void;
  received: ReceivedWebhook[];
  on(path: string): ReceivedWebhook[];
  close(): Promise<void>;
}

/**
 * A real local HTTP receiver, as a subscriber would write it: it verifies every request with the
 * `standardwebhooks` npm library (signature over the raw body, timestamp tolerance) and records it.
 * By default it answers 204. It listens on `host` (loopback unless a test's senders run elsewhere,
 * as the pods of the local Kubernetes cluster do: they reach this machine at the node's address).
 */
export async function startWebhookReceiver(host = "127.0.0.1"): Promise<WebhookReceiver> {
  const secrets = new Map<string, string>();
  const deciders = new Map<string, (attempt: number, request: ReceivedWebhook) => Answer>();
  const received: ReceivedWebhook[] = [];
  const attemptsById = new Map<string, number>();
  const hanging = new Set<http.ServerResponse>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://receiver").pathname;
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const header = (name: string) => String(req.headers[name] ?? "");
      const request: ReceivedWebhook = {
        path,
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        headers: req.headers,
        rawBody,
        receivedAt: Date.now(),
      };
      const secret = secrets.get(path);
      try {
        if (!secret) throw new Error(`no secret registered for ${path}`);
        request.payload = new Webhook(secret).verify(rawBody, req.headers as Record<string, string>) as ReceivedWebhook["payload"];
      } catch (error) {
        request.verificationError = (error as Error).message;
      }
      received.push(request);
      const attempt = (attemptsById.get(request.id) ?? 0) + 1;
      attemptsById.set(request.id, attempt);
      const answer = deciders.get(path)?.(attempt, request) ?? 204;
      if (answer === "hang") {
        hanging.add(res);
        res.once("close", () => hanging.delete(res));
        return;
      }
      const { status, headers, body, delayMs } = typeof answer === "number" ? { status: answer, headers: {}, body: "", delayMs: 0 } : answer;
      const respond = () => void res.writeHead(status, headers ?? {}).end(body ?? "");
      if (delayMs) {
        hanging.add(res);
        setTimeout(() => hanging.delete(res) && respond(), delayMs);
      } else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const baseUrl = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    useSecret: (path, secret) => void secrets.set(path, secret),
    answer: (path, decide) => void deciders.set(path, decide),
    received,
    on: (path) => received.filter((request) => request.path === path),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
