import express, { type Express } from "express";
import helmet from "helmet";
import type { Redis } from "ioredis";
import type { CredentialCache, Logger, ResolveCaller } from "@svc/platform";
import type { Registry } from "@svc/platform/telemetry";
import type { Clients } from "./clients.ts";
import type { Config } from "./config.ts";
import { requireCredential } from "./http/bearer.ts";
import { sessionCookies } from "./http/session-cookie.ts";
import { errorHandler, HttpError } from "./http/errors.ts";
import { httpMetrics } from "./http/http-metrics.ts";
import { jsonBody } from "./http/json-body.ts";
import { methodNotAllowed } from "./http/method-not-allowed.ts";
import { rateLimit } from "./http/rate-limit.ts";
import { requestId } from "./http/request-id.ts";
import { requestLog } from "./http/request-log.ts";
import { buildOpenApiDocument } from "./openapi/document.ts";
import { openApiFragments } from "./openapi/fragments.ts";
import type { Assets } from "./pages/assets.ts";
import { docsPageRoutes } from "./pages/docs-page.ts";
import { meetingPageRoutes } from "./pages/meeting-page.ts";
import { dashboardPageRoutes } from "./pages/dashboard-page.ts";
import { authRoutes } from "./routes/auth.ts";
import { healthRoutes } from "./routes/health.ts";
import { meetingRoutes } from "./routes/meeting.ts";
import { meetingJoinRoutes } from "./routes/meeting-join.ts";
import { meetingRoomRoutes } from "./routes/meeting-room.ts";
import { recordingRoutes } from "./routes/recording.ts";
import { recordingDownloadRoutes } from "./routes/recording-download.ts";
import { transcriptRoutes } from "./routes/transcript.ts";
import { transcriptDownloadRoutes } from "./routes/transcript-download.ts";
import { webhookRoutes } from "./routes/webhook.ts";
import { oauthRoutes } from "./routes/oauth.ts";
import { createDashboardClients, managementRoutes, publicSessionRoutes } from "./routes/dashboard-api.ts";

export interface GatewayDependencies {
  config: Config;
  clients: Clients;
  logger: Logger;
  /** Records http_server_request_duration_seconds when given. */
  metrics?: Registry;
  /** Shared rate-limit buckets; absent when REDIS_URL is unset. */
  redis?: Redis;
  /** identity's shared verification cache (with Redis): verified credentials get their own rate-limit bucket. */
  credentialCache?: CredentialCache;
  /** Resolves a bearer credential (verification cache, then identity), for POST /auth. */
  resolveCaller: ResolveCaller;
  /** The pages' bundled browser assets (pages/assets.ts). */
  assets: Assets;
  /** True while the process drains before stopping: /readyz then fails. */
  draining?: () => boolean;
}

/** Builds the gateway: the only public HTTP surface. It holds no business rules and no database. */
export function buildApp({ config, clients, logger, metrics, redis, credentialCache, resolveCaller, assets, draining }: GatewayDependencies): Express {
  const app = express();
  app.disable("x-powered-by");
  // No ETag on every response: Express hashes each body for it (a SHA-1 per API answer, about 1% of
  // the gateway's CPU), and no client of ours revalidates: the API's answers are not cacheable,
  // the pages carry a fresh CSP nonce each time, and the assets are immutable and fingerprinted.
  app.set("etag", false);
  // req.ip (rate limits, sign-in throttling, join grants) is the address TRUST_PROXY_HOPS proxies
  // in front of us reported; 0 (the default) trusts no X-Forwarded-For at all.
  app.set("trust proxy", config.TRUST_PROXY_HOPS);
  if (metrics) app.use(httpMetrics(metrics));
  app.use(requestId);
  app.use(requestLog(logger));
  app.use(helmet());
  app.use(healthRoutes(clients, Date.now, draining));
  // Everything after the probes is rate limited, the public OAuth endpoints included.
  app.use(rateLimit({ requestsPerSecond: config.RATE_LIMIT_PER_SECOND, redis, keyPrefix: config.REDIS_KEY_PREFIX, credentialCache, logger }));

  // Public routes (no Bearer token): the OpenAPI document, and the OAuth browser and token
  // endpoints, which must be mounted here, above the authenticated API.
  const openApiDocument = buildOpenApiDocument(config.PUBLIC_URL, openApiFragments);
  app.get("/api/v1/openapi.json", (_req, res) => {
    res.json(openApiDocument);
  });
  // A declared path with an undeclared method: 405 with Allow (and OPTIONS: 204 with Allow),
  // before any router or credential check, the OAuth server's paths included.
  app.use("/api/v1", methodNotAllowed(openApiDocument.paths as Record<string, Record<string, unknown>>));
  // The pages' fingerprinted scripts and styles (immutable), and the meeting room: public, the
  // unguessable id in its URL is the capability.
  app.use(assets.routes());
  app.use(meetingPageRoutes({ clients, logger, assets, livekitPublicUrl: config.LIVEKIT_PUBLIC_URL }));
  // The human-readable API reference of the same document.
  app.use(docsPageRoutes({ assets }));
  app.use(oauthRoutes({ identityOAuthUrl: config.IDENTITY_OAUTH_URL, logger }));
  // Join grants for the meeting room: public like the page that asks for them.
  app.use("/api/v1", meetingJoinRoutes(clients, config.PUBLIC_URL));
  app.use("/api/v1", meetingRoomRoutes(clients));
  // Recording files for holders of a signed access link: public, the link is the permission.
  app.use(recordingDownloadRoutes(clients, logger));
  app.use(transcriptDownloadRoutes(clients));
  app.use(dashboardPageRoutes(assets));
  const cookies = sessionCookies(config.PUBLIC_URL);
  const dashboardClients = createDashboardClients(config.IDENTITY_URL);
  // Dashboard sign-in and sign-up take no credential.
  app.use("/api/v1", publicSessionRoutes(dashboardClients, cookies));

  // The authenticated REST API: every route below needs `Authorization: Bearer <token>` or the
  // dashboard's session cookie (syntax checked here; validity and scope decided by the owning service) and takes JSON bodies of at
  // most 100 KB. Register each area's router on `api`.
  const api = express.Router();
  api.use(requireCredential(cookies), ...jsonBody);
  api.use(authRoutes(resolveCaller));
  api.use(meetingRoutes(clients, logger));
  api.use(recordingRoutes(clients));
  api.use(transcriptRoutes(clients));
  api.use(webhookRoutes(clients));
  api.use(managementRoutes(dashboardClients, cookies));
  app.use("/api/v1", api);

  app.use((_req, _res, next) => next(new HttpError(404, "Not found")));
  app.use(errorHandler(logger));
  return app;
}
