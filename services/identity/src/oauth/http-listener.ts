import http from "node:http";
import type Provider from "oidc-provider";
import type { Logger, ShutdownDrain } from "@svc/platform";

export interface RunningOAuthHttpListener {
  port: number;
  close(): Promise<void>;
}

/**
 * The authorization server's own HTTP/1.1 listener (OAUTH_PORT). Only the gateway is meant to
 * reach it: it forwards the public OAuth paths here.
 *
 * oidc-provider builds its URLs (metadata endpoints, the interaction and resume redirects) from
 * the request's host and scheme, and marks its cookies `Secure` when the scheme is https; with
 * `provider.proxy` Koa reads both from X-Forwarded-Host and X-Forwarded-Proto. Those are set here,
 * on every request, from PUBLIC_URL and nothing else: whatever a client (or a proxy that does not
 * overwrite them) sent is replaced, so `Host: evil.example` cannot move an endpoint of the
 * metadata, and TLS terminated in front of the gateway still yields Secure cookies.
 */
export async function startOAuthHttpListener(options: {
  provider: Provider;
  /** PUBLIC_URL: the only source of the scheme and host the authorization server answers with. */
  publicUrl: string;
  host: string;
  port: number;
  logger: Logger;
  drain?: ShutdownDrain;
}): Promise<RunningOAuthHttpListener> {
  const publicUrl = new URL(options.publicUrl);
  const handle = options.provider.callback();
  const server = http.createServer((request, response) => {
    request.headers["x-forwarded-host"] = publicUrl.host;
    request.headers["x-forwarded-proto"] = publicUrl.protocol.slice(0, -1);
    delete request.headers.forwarded;
    void handle(request, response);
  });
  options.drain?.httpServer(server);
  // Sign-in pages are short requests; do not let idle keep-alive sockets hold shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  options.logger.info({ host: options.host, port }, "OAuth authorization server listening (HTTP)");
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
