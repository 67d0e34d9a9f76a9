import type { RequestHandler } from "express";
import { HttpError } from "./errors.ts";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/**
 * 405 with `Allow` for a request whose path the OpenAPI document declares but whose method it does
 * not (RFC 9110 §15.5.6), instead of a 404 that says the resource does not exist. The document is
 * the one list of routes, so this never disagrees with it. `paths` are relative to `/api/v1`.
 */
export function methodNotAllowed(paths: Record<string, Record<string, unknown>>): RequestHandler {
  const routes = Object.entries(paths).map(([template, operations]) => {
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^/}]+\}/g, "[^/]+");
    const declared = Object.keys(operations).filter((method) => METHODS.includes(method));
    // Express answers HEAD with the GET handler.
    const allowed = declared.includes("get") ? [...declared, "head"] : declared;
    return { matches: new RegExp(`^${pattern}/?$`), allowed: allowed.map((method) => method.toUpperCase()) };
  });
  return (req, _res, next) => {
    const route = routes.find((candidate) => candidate.matches.test(req.path));
    if (!route || route.allowed.includes(req.method)) return next();
    next(new HttpError(405, `Method ${req.method} is not allowed here; allowed: ${route.allowed.join(", ")}`, { Allow: route.allowed.join(", ") }));
  };
}
