import http from "node:http";
import https from "node:https";
import type { RequestHandler } from "express";
import type { Logger } from "@svc/platform";
import { isOAuthPath } from "@svc/platform/contract";
import { HttpError } from "../http/errors.ts";

// Connection-scoped headers (RFC 9110 §7.6.1) are not forwarded in either direction.
const HOP_BY_HOP = new Set([
  // Nor a browser's trace context or baggage: a trace starts at the gateway (trace-boundaries.ts);
  // the gateway's own context is injected into the forwarded request when tracing is on.
  "traceparent",
  "tracestate",
  "baggage",
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

const UPSTREAM_TIMEOUT_MS = 30_000;

/**
 * The OAuth 2.0 endpoints are served by identity's authorization server on its own HTTP port
 * (IDENTITY_OAUTH_URL); the gateway forwards them as they are, streaming, with no rules of its
 * own (which paths: `isOAuthPath` in the platform contract). These paths take no Bearer token:
 * browsers and applications authenticate to the authorization server itself (session cookie,
 * client secret).
 */
export function oauthRoutes(options: { identityOAuthUrl: string; logger: Logger }): RequestHandler {
  const upstream = new URL(options.identityOAuthUrl);
  // Plain http inside the cluster by default; https when IDENTITY_OAUTH_URL says so.
  const transport = upstream.protocol === "https:" ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 256 });

  return (req, res, next) => {
    if (!isOAuthPath(req.path)) return next();
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    // No X-Forwarded-Host/-Proto: the authorization server takes its scheme and host from
    // PUBLIC_URL alone (identity's http-listener.ts), whatever the browser's Host said.
    delete headers["x-forwarded-host"];
    delete headers["x-forwarded-proto"];
    delete headers.forwarded;
    headers["x-forwarded-for"] = [req.headers["x-forwarded-for"], req.socket.remoteAddress].filter(Boolean).join(", ");
    headers["x-request-id"] = res.locals.requestId as string;
    // The client's address for sign-in throttling, as `trust proxy` resolves it (never the client's claim).
    headers["x-svc-client-address"] = req.ip ?? "";

    const upstreamRequest = transport.request(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.originalUrl,
        headers,
        agent,
        timeout: UPSTREAM_TIMEOUT_MS,
      },
      (upstreamResponse) => {
        res.status(upstreamResponse.statusCode ?? 502);
        for (const [name, value] of Object.entries(upstreamResponse.headers)) {
          if (!HOP_BY_HOP.has(name) && value !== undefined) res.setHeader(name, value);
        }
        upstreamResponse.pipe(res);
      },
    );
    upstreamRequest.on("timeout", () => upstreamRequest.destroy(new Error("authorization server timed out")));
    upstreamRequest.on("error", (error) => {
      options.logger.error({ err: error, path: req.path, requestId: res.locals.requestId }, "OAuth authorization server unreachable");
      if (res.headersSent) res.destroy();
      else next(new HttpError(503, "Service temporarily unavailable", { "Retry-After": "1" }));
    });
    req.pipe(upstreamRequest);
  };
}
