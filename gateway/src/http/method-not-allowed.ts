import type { RequestHandler } from "express";
import { HttpError } from "./errors.ts";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/**
 * 405 with `Allow` for a request whose path the OpenAPI document declares but whose method it does
 * not (RFC 9110 §15.5.6), instead of a 404 that says the resource does not exist, and the answer
 * to OPTIONS (204 with `Allow`, RFC 9110 §9.3.7). The document is the one list of routes, so this
 * never disagrees with it, whichever router serves the path. `paths` are relative to `/api/v1`.
 */
export function methodNotAllowed(paths: Record<string, Record<string, unknown>>): RequestHandler {
  const routes = Object.entries(paths).map(([template, operations]) => {
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^/}]+\}/g, "[^/]+");
    const declared = Object.keys(operations).filter((method) => METHODS.includes(method));
    // Express answers HEAD with the GET handler.
    const allowed = [...declared, ...(declared.includes("get") ? ["head"] : []), "options"];
    return { matches: new RegExp(`^${pattern}/?$`), allowed: allowed.map((method) => method.toUpperCase()) };
  });
  return (req, res, next) => {
    const route = routes.find((candidate) => candidate.matches.test(req.path));
    if (!route) return next();
    if (req.method === "OPTIONS") {
      res.set("Allow", route.allowed.join(", ")).status(204).end();
      return;
    }
    if (route.allowed.includes(req.method)) return next();
    next(new HttpError(405, `Method ${req.method} is not allowed here; allowed: ${route.allowed.join(", ")}`, { Allow: route.allowed.join(", ") }));
  };
}
