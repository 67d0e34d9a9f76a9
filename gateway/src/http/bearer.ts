import type { RequestHandler } from "express";
import { isWellFormedToken, MAX_TOKEN_LENGTH, readBearer } from "@svc/platform";
import { unauthorized } from "./errors.ts";
import type { SessionCookies } from "./session-cookie.ts";

/** What a request whose Authorization header is not a usable Bearer credential is told. */
const refusals = {
  "other-scheme": () => unauthorized("Authorization header must use the Bearer scheme", false),
  empty: () => unauthorized("Missing bearer token", false),
  malformed: () => unauthorized("Invalid token", true),
} as const;

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
      if (!isWellFormedToken(session)) return next(unauthorized("Invalid session", true));
      res.locals.authorization = `Bearer ${session}`;
      const csrf = req.get("x-csrf-token");
      if (csrf && csrf.length <= MAX_TOKEN_LENGTH) res.locals.csrfToken = csrf;
      return next();
    }
    const credential = readBearer(header);
    if (credential.kind !== "token") return next(credential.kind === "absent" ? refusals.empty() : refusals[credential.kind]());
    res.locals.authorization = `Bearer ${credential.token}`;
    next();
  };
}

/** The credential to forward to a service as gRPC metadata (with a session's CSRF token). */
export const forwardedCredential = (locals: Record<string, unknown>): Record<string, string> =>
  typeof locals.csrfToken === "string"
    ? { authorization: locals.authorization as string, "x-csrf-token": locals.csrfToken }
    : { authorization: locals.authorization as string };
