import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries X-Request-Id: the caller's own if it is sane, otherwise a fresh UUID. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get("x-request-id");
  const id = incoming && acceptable.test(incoming) ? incoming : randomUUID();
  res.locals.requestId = id;
  res.set("X-Request-Id", id);
  next();
};
