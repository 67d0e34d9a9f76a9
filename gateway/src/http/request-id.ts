import { randomUUID } from "node:crypto";
import { isAcceptableRequestId, REQUEST_ID_HEADER, withRequestId } from "@svc/platform";
import type { RequestHandler } from "express";

/**
 * Every response carries X-Request-Id: the caller's own if it is sane, otherwise a fresh UUID. The
 * rest of the request runs with it as the current request id, so every downstream call and log
 * line carries it.
 */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get(REQUEST_ID_HEADER);
  const id = isAcceptableRequestId(incoming) ? incoming : randomUUID();
  res.locals.requestId = id;
  res.set("X-Request-Id", id);
  withRequestId(id, next);
};
