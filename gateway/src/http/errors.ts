import { Code, ConnectError } from "@connectrpc/connect";
import type { ErrorRequestHandler, Response } from "express";
import type { Logger } from "@svc/platform";
import { errorMetadata } from "@svc/platform/contract";

/**
 * The one place where gRPC status codes become HTTP statuses. Anything unexpected becomes a
 * generic 500: the caller never sees internal detail.
 */
const httpStatusByCode: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400,
  [Code.Unauthenticated]: 401,
  [Code.PermissionDenied]: 403,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.FailedPrecondition]: 409,
  // A concurrent duplicate (an Idempotency-Key still being processed).
  [Code.Aborted]: 409,
  [Code.ResourceExhausted]: 429,
  [Code.Unavailable]: 503,
  // A service that did not answer within the call's deadline is overloaded or stuck: for the
  // caller that is the same outage as an unreachable one (retry later; an Idempotency-Key makes the
  // retry safe if the first call did complete), not an internal error of ours.
  [Code.DeadlineExceeded]: 503,
};

export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }
}

/** Builds the 401 of RFC 6750: `error="invalid_token"` only when a token was actually sent. */
export function unauthorized(message: string, tokenSent: boolean): HttpError {
  return new HttpError(401, message, {
    "WWW-Authenticate": tokenSent ? 'Bearer realm="svc", error="invalid_token"' : 'Bearer realm="svc"',
  });
}

/**
 * Translates a downstream error to the HTTP error a REST caller gets. `internalMessage` is the
 * message of the generic 500 (the specification fixes one for meeting creation).
 */
export function fromConnectError(error: ConnectError, internalMessage = "Internal server error"): HttpError {
  // A meeting that has ended or was cancelled is gone for good, for joining: 410 rather than the
  // 409 of other refusals. The service marks which refusals mean that.
  if (error.code === Code.FailedPrecondition && error.metadata.get(errorMetadata.gone) === "true") return new HttpError(410, error.rawMessage);
  // The same Idempotency-Key with a different request: 422, as the draft specifies.
  if (error.code === Code.InvalidArgument && error.metadata.get(errorMetadata.idempotency) === "mismatch") return new HttpError(422, error.rawMessage);
  const status = httpStatusByCode[error.code];
  if (status === 401) return unauthorized(error.rawMessage, true);
  if (status === 403) {
    const scope = error.metadata.get(errorMetadata.requiredScope);
    return new HttpError(403, error.rawMessage, scope ? { "WWW-Authenticate": `Bearer realm="svc", error="insufficient_scope", scope="${scope}"` } : {});
  }
  // A 503 the service chose (it says how long to wait: no recording capacity, say) keeps its
  // reason; any other is an outage whose detail stays inside.
  if (status === 503) {
    const retryAfter = error.metadata.get(errorMetadata.retryAfter);
    if (retryAfter) return new HttpError(503, error.rawMessage, { "Retry-After": retryAfter });
    return new HttpError(503, "Service temporarily unavailable", { "Retry-After": "1" });
  }
  if (status === 429) return new HttpError(429, error.rawMessage, { "Retry-After": error.metadata.get(errorMetadata.retryAfter) ?? "1" });
  if (status) return new HttpError(status, error.rawMessage);
  return new HttpError(500, internalMessage);
}

export function sendError(res: Response, error: HttpError) {
  res.set(error.headers);
  res.status(error.status).json({ error: error.message, requestId: res.locals.requestId as string });
}

/** The last Express error handler: every error leaves as JSON `{error, requestId}`. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof HttpError) return sendError(res, error);
    if (error instanceof ConnectError) {
      const httpError = fromConnectError(error);
      if (httpError.status >= 500) logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, "downstream error");
      return sendError(res, httpError);
    }
    // body-parser errors carry a status and a type; translate them to clear messages.
    const parserError = error as { status?: number; type?: string };
    if (parserError.type === "entity.too.large") return sendError(res, new HttpError(413, "Request body too large (limit 100 KB)"));
    if (parserError.type === "entity.parse.failed") return sendError(res, new HttpError(400, "Malformed JSON in request body"));
    if (parserError.status && parserError.status >= 400 && parserError.status < 500) {
      return sendError(res, new HttpError(400, "Invalid request body"));
    }
    logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, "unhandled error");
    return sendError(res, new HttpError(500, "Internal server error"));
  };
}
