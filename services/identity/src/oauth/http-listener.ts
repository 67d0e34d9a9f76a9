import http from "node:http";
import type Provider from "oidc-provider";
import type { Logger, ShutdownDrain } from "@svc/platform";

export interface RunningOAuthHttpListener {
  port: number;
  close(): Promise<void>;
}

/**
 * The authorization server's own HTTP/1.1 listener (OAUTH_PORT). Only the gateway is meant to
 * reach it: it forwards the public OAuth paths here with the browser's Host and X-Forwarded-*.
 */
export async function startOAuthHttpListener(options: {
  provider: Provider;
  host: string;
  port: number;
  logger: Logger;
  drain?: ShutdownDrain;
}): Promise<RunningOAuthHttpListener> {
  const server = http.createServer(options.provider.callback());
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
