import express, { type Express } from "express";
import helmet from "helmet";
import type { Logger } from "@svc/platform";
import type { Clients } from "./clients.ts";
import type { Config } from "./config.ts";
import { errorHandler, HttpError } from "./http/errors.ts";
import { requestId } from "./http/request-id.ts";
import { buildOpenApiDocument, type OpenApiFragment } from "./openapi/document.ts";
import { healthRoutes } from "./routes/health.ts";

/** Each area's OpenAPI paths; every route registered below has its entry here. */
const openApiFragments: OpenApiFragment[] = [];

export interface GatewayDependencies {
  config: Config;
  clients: Clients;
  logger: Logger;
}

/** Builds the gateway: the only public HTTP surface. It holds no business rules and no database. */
export function buildApp({ config, clients, logger }: GatewayDependencies): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.TRUST_PROXY_HOPS);
  app.use(requestId);
  app.use(helmet());
  app.use(healthRoutes(clients));
  const openApiDocument = buildOpenApiDocument(config.PUBLIC_URL, openApiFragments);
  app.get("/api/v1/openapi.json", (_req, res) => {
    res.json(openApiDocument);
  });

  app.use((_req, _res, next) => next(new HttpError(404, "Not found")));
  app.use(errorHandler(logger));
  return app;
}
