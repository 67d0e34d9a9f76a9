import http from "node:http";
import type { AddressInfo } from "node:net";

export interface DroppedWebhook {
  event: string;
  participantName?: string;
}

export interface MediaWebhookProxy {
  /** The URL to give the media server as its webhook target. */
  url: string;
  /** Where requests are forwarded; set once the meeting service's listener is known. */
  target: string;
  /** Drops (answers 200 without forwarding) every webhook matching `predicate` from now on. */
  drop(predicate: (webhook: DroppedWebhook) => boolean): void;
  dropped: DroppedWebhook[];
  close(): Promise<void>;
}

/**
 * Sits between the media server and the meeting service to lose webhooks on purpose, the way a
 * network or a crashed receiver would (answering 200 so the media server does not retry).
 */
export async function startMediaWebhookProxy(): Promise<MediaWebhookProxy> {
  const predicates: ((webhook: DroppedWebhook) => boolean)[] = [];
  const dropped: DroppedWebhook[] = [];
  const proxy: MediaWebhookProxy = {
    url: "",
    target: "",
    drop: (predicate) => void predicates.push(predicate),
    dropped,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const parsed = JSON.parse(body.toString("utf8")) as { event: string; participant?: { name?: string } };
      const webhook: DroppedWebhook = { event: parsed.event, ...(parsed.participant?.name ? { participantName: parsed.participant.name } : {}) };
      if (predicates.some((predicate) => predicate(webhook))) {
        dropped.push(webhook);
        return void res.writeHead(200).end();
      }
      try {
        const response = await fetch(proxy.target, {
          method: "POST",
          headers: { "content-type": String(req.headers["content-type"] ?? ""), authorization: String(req.headers.authorization ?? "") },
          body,
        });
        res.writeHead(response.status).end(await response.text());
      } catch {
        res.writeHead(502).end(); // the meeting service is down: the media server may retry
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/livekit/webhook`;
  return proxy;
}
