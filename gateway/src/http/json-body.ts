import express, { type RequestHandler } from "express";
import { HttpError } from "./errors.ts";

/** The largest request body the REST API accepts (docs/decisions/0008-rest-contract-from-zod-schemas.md). */
export const MAX_BODY = "100kb";

/**
 * Request bodies of the REST API are JSON: a body of another content type is refused with 400
 * before anything reads it; a body over 100 KB ends as 413 and malformed JSON as 400 (both
 * translated by the error handler). Requests without a body pass untouched.
 */
export const jsonBody: RequestHandler[] = [
  (req, _res, next) => {
    // Clients send `Content-Length: 0` for an empty POST (fetch does): that is no body either.
    const hasBody = req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0";
    if (hasBody && !req.is("application/json")) return next(new HttpError(400, "Content-Type must be application/json"));
    next();
  },
  express.json({ limit: MAX_BODY }),
];
