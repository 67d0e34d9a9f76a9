import type { RequestHandler } from "express";
import { unauthorized } from "./errors.ts";

// Tokens are printable ASCII (RFC 6750 b64token); anything longer than this is not one of ours.
const MAX_TOKEN_LENGTH = 512;
const b64token = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Refuses requests without a well-formed `Authorization: Bearer <token>` before any downstream
 * call. Whether the token is valid is decided by the service that owns the operation (it asks
 * identity), so direct gRPC callers get exactly the same rules.
 */
export const requireBearer: RequestHandler = (req, res, next) => {
  const header = req.get("authorization");
  if (!header) return next(unauthorized("Missing Authorization header", false));
  const match = /^Bearer +(.*)$/i.exec(header);
  if (!match) return next(unauthorized("Authorization header must use the Bearer scheme", false));
  const token = match[1]!.trim();
  if (!token) return next(unauthorized("Missing bearer token", false));
  if (token.length > MAX_TOKEN_LENGTH || !b64token.test(token)) return next(unauthorized("Invalid token", true));
  res.locals.authorization = `Bearer ${token}`;
  next();
};

/** The credential to forward to a service as gRPC metadata. */
export const forwardedCredential = (locals: Record<string, unknown>) => ({ authorization: locals.authorization as string });
