import type { Request, RequestHandler } from "express";
import { histogramIn, type Registry } from "@svc/platform/telemetry";

const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** The route label of a request no route answered (404s, and refusals before routing such as 401 and 429). */
export const NO_ROUTE = "(none)";

/**
 * http_server_request_duration_seconds{method, route, status_code}: rate, errors and duration
 * per route. The route is the Express route template (/api/v1/meeting/:id), never the path a
 * caller sent, so the label set stays bounded and carries no id.
 */
export function httpMetrics(registry: Registry): RequestHandler {
  const duration = histogramIn(registry, "http_server_request_duration_seconds", "Time to answer an HTTP request, by method, route template and status code.", [
    "method",
    "route",
    "status_code",
  ]);
  return (req, res, next) => {
    const stop = duration.startTimer();
    const routeOf = recordRouteTemplate(req);
    res.once("finish", () => {
      stop({ method: knownMethods.has(req.method) ? req.method : "OTHER", route: routeOf(), status_code: String(res.statusCode) });
    });
    next();
  };
}

/**
 * Express sets `req.route` when a route matches, while `req.baseUrl` is still its router's mount
 * path; by the time an error handler answers, the router has restored `baseUrl`. So the template
 * is taken at that moment, through a setter on `req.route`.
 */
function recordRouteTemplate(req: Request): () => string {
  let route: Request["route"];
  let template = NO_ROUTE;
  Object.defineProperty(req, "route", {
    configurable: true,
    enumerable: true,
    get: () => route,
    set: (matched: Request["route"]) => {
      route = matched;
      if (matched) template = typeof matched.path === "string" ? `${req.baseUrl}${matched.path}` : `${req.baseUrl}(pattern)`;
    },
  });
  return () => template;
}
