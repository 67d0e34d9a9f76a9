import type { RequestHandler } from "express";
import { unauthorized } from "./errors.ts";
import type { SessionCookies } from "./session-cookie.ts";

// Tokens are printable ASCII (RFC 6750 b64token); anything longer than this is not one of ours.
const MAX_TOKEN_LENGTH = 512;
const b64token = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Refuses requests without a credential before any downstream call: a well-formed
 * `Authorization: Bearer <token>`, or else the dashboard's session cookie, which is forwarded
 * as the same bearer metadata together with the request's `X-CSRF-Token` header. Whether the
 * credential is valid (and the CSRF token right) is decided by identity, for the service that
 * owns the operation, so direct gRPC callers get exactly the same rules.
 */
export function requireCredential(cookies: SessionCookies): RequestHandler {
  return (req, res, next) => {
    const header = req.get("authorization");
    if (!header) {
      const session = cookies.sessionOf(req);
      if (!session) return next(unauthorized("Missing Authorization header", false));
      if (session.length > MAX_TOKEN_LENGTH || !b64token.test(session)) return next(unauthorized("Invalid session", true));
      res.locals.authorization = `Bearer ${session}`;
      const csrf = req.get("x-csrf-token");
      if (csrf && csrf.length <= MAX_TOKEN_LENGTH) res.locals.csrfToken = csrf;
      return next();
    }
    const match = /^Bearer +(.*)$/i.exec(header);
    if (!match) return next(unauthorized("Authorization header must use the Bearer scheme", false));
    const token = match[1]!.trim();
    if (!token) return next(unauthorized("Missing bearer token", false));
    if (token.length > MAX_TOKEN_LENGTH || !b64token.test(token)) return next(unauthorized("Invalid token", true));
    res.locals.authorization = `Bearer ${token}`;
    next();
  };
}

/** The credential to forward to a service as gRPC metadata (with a session's CSRF token). */
export const forwardedCredential = (locals: Record<string, unknown>): Record<string, string> =>
  typeof locals.csrfToken === "string"
    ? { authorization: locals.authorization as string, "x-csrf-token": locals.csrfToken }
    : { authorization: locals.authorization as string };
