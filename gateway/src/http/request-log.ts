import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import { pinoHttp } from "pino-http";
import { REDACTED, REDACTED_PATHS, withoutPathSecrets, type Logger } from "@svc/platform";
import { redactedLocation } from "./redirect-location.ts";

const probes = new Set(["/healthz", "/readyz"]);

/**
 * The platform's redaction narrowed to the access line's own fields (`req.…`, `res.…`): the line
 * has a fixed shape (the serializers below), and the full list's wildcard paths made redaction
 * about a tenth of the gateway's CPU per request (issue #18's profiles).
 */
const ACCESS_LINE_REDACTED_PATHS = REDACTED_PATHS.filter((path) => path.startsWith("req.") || path.startsWith("res."));

/**
 * One log line per request, tagged with its request id. The Authorization header and cookies
 * are redacted (the request's headers are not logged at all, only its user agent); health probes
 * are not logged (they arrive every few seconds and say nothing).
 */
export function requestLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger: logger.child({}, { redact: { paths: ACCESS_LINE_REDACTED_PATHS, censor: REDACTED } }),
    genReqId: (_req, res) => (res as unknown as { locals?: { requestId?: string } }).locals?.requestId ?? randomUUID(),
    autoLogging: { ignore: (req) => probes.has(req.url ?? "") },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? "error" : "info"),
    // Query strings may carry OAuth codes and state: the path only. Of the response, its status
    // and a redirect's Location (the consent page's, to the application) without its parameters'
    // values; no other header: they are the same on every response (security headers, CSP), a
    // Set-Cookie would carry a session, and copying them was a tenth of the gateway's CPU on POST /auth.
    serializers: {
      res: (res: { statusCode: number; headers?: Record<string, unknown> }) => {
        const location = res.headers?.location;
        return typeof location === "string" ? { statusCode: res.statusCode, location: redactedLocation(location) } : { statusCode: res.statusCode };
      },
      req: (req: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({
        id: req.id,
        method: req.method,
        // A recording's download link carries its token in the path: never logged (withoutPathSecrets).
        path: withoutPathSecrets(req.url.split("?")[0]!),
        userAgent: req.headers["user-agent"],
      }),
    },
  });
}
