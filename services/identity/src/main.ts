import path from "node:path";
import {
  connectRedis,
  createMemoryCredentialCache,
  afterDrain,
  createRedisCredentialCache,
  credentialCacheKeyOf,
  type CredentialCache,
  type Logger,
} from "@svc/platform";
import { runService } from "@svc/platform/service";
import { countingCacheLookups } from "@svc/platform/telemetry";
import { EmbeddingService, IdentityAdminService, IdentityService, ManagementService, SessionService } from "@svc/proto/svc/identity/v1/identity_pb";
import type { Redis } from "ioredis";
import { adminService } from "./handlers/admin-service.ts";
import { requireAdminToken } from "./admin/admin-token.ts";
import { configSchema, type Config } from "./config.ts";
import { apiKeyVerifier } from "./credentials/api-key-verifier.ts";
import { createLastUsedRecorder } from "./credentials/last-used-recorder.ts";
import { createCredentialVerification } from "./credentials/verify-credential.ts";
import { recordApiKeyUses } from "./db/api-keys.ts";
import { pgAccountStores } from "./db/pg-account-stores.ts";
import { pgEmbedOriginStore } from "./db/pg-embed-origin-store.ts";
import { embeddingService } from "./handlers/embedding-service.ts";
import { identityService } from "./handlers/identity-service.ts";
import { pgOAuthArtifactStore } from "./db/pg-oauth-artifact-store.ts";
import { pgOAuthClientPolicyStore } from "./db/pg-oauth-client-policy-store.ts";
import { pgOAuthClientStore } from "./db/pg-oauth-client-store.ts";
import { oauthAccessTokenVerifier } from "./oauth/provider/access-token-verifier.ts";
import { startAuthorizationServer } from "./oauth/start-authorization-server.ts";
import { oauthClientAdmin } from "./handlers/oauth-client-admin.ts";
import { pgSessionRecordStore } from "./db/pg-session-record-store.ts";
import { managementService } from "./handlers/management-service.ts";
import { createSessionStore } from "./sessions/session-store.ts";
import { sessionService } from "./handlers/session-service.ts";
import { createPasswordSignIn } from "./sign-in/password-sign-in.ts";
import { countThrottledSignIns } from "./sign-in/sign-in-metrics.ts";
import { createSignInThrottle } from "./sign-in/sign-in-throttle.ts";

const service = { name: "identity", configSchema, migrationsDir: path.join(import.meta.dirname, "../migrations"), defaultPoolSize: 10, idempotencyKeys: false };

runService(service, async ({ config, logger, metrics, pool, drain, serve }) => {
  if (config.usingDevelopmentAdminToken) {
    logger.warn(
      "DEVELOPMENT DEFAULT IN USE: ADMIN_TOKEN is unset, so the administrator API accepts the well-known development token. Set ADMIN_TOKEN for anything but local development.",
    );
  }
  const redis = config.REDIS_URL ? await connectRedis(config.REDIS_URL, logger) : undefined;
  const cache = countingCacheLookups(createCredentialCache(config, redis, logger), metrics);
  const lastUsed = createLastUsedRecorder({
    write: (uses) => recordApiKeyUses(pool, uses),
    flushIntervalMs: config.LAST_USED_FLUSH_INTERVAL_MS,
    logger,
  });
  const credentials = createCredentialVerification({
    verifiers: [apiKeyVerifier(pool), oauthAccessTokenVerifier(pgOAuthArtifactStore(pool))],
    cache,
    cacheTtlMs: config.CREDENTIAL_CACHE_TTL_SECONDS * 1000,
    onApiKeyUse: lastUsed.record,
    logger,
  });
  const sessions = createSessionStore(
    pgSessionRecordStore(pool),
    { idleSeconds: config.SESSION_IDLE_TIMEOUT_SECONDS, absoluteSeconds: config.SESSION_ABSOLUTE_TIMEOUT_SECONDS },
    logger,
  );
  // One throttle for the OAuth sign-in page and the dashboard: failures count together.
  const signIn = createPasswordSignIn(
    pool,
    createSignInThrottle({
      maxFailuresPerAccount: config.SIGNIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerAddress: config.SIGNIN_MAX_FAILURES_PER_ADDRESS,
      windowSeconds: config.SIGNIN_THROTTLE_WINDOW_SECONDS,
      backoffBaseSeconds: config.SIGNIN_BACKOFF_BASE_SECONDS,
      backoffMaxSeconds: config.SIGNIN_BACKOFF_MAX_SECONDS,
      redis,
      keyPrefix: config.REDIS_KEY_PREFIX,
      logger,
      onThrottled: countThrottledSignIns(metrics),
    }),
  );
  // Production: https redirect URIs only (loopback excepted), for the CLI and the dashboard alike.
  const redirectUriPolicy = { requireHttps: config.NODE_ENV === "production" };
  const accounts = pgAccountStores(pool);
  const embedOrigins = pgEmbedOriginStore(pool);
  const server = await serve({
    services: [IdentityService, SessionService, ManagementService, EmbeddingService],
    routes: (router) => {
      router.service(IdentityService, identityService(credentials, sessions));
      router.service(SessionService, sessionService({ accounts, sessions, signIn, credentials, signupEnabled: config.SIGNUP_ENABLED, logger }));
      router.service(
        ManagementService,
        managementService({
          accounts,
          sessions,
          credentials,
          cache,
          clients: pgOAuthClientStore(pool),
          artifacts: pgOAuthArtifactStore(pool),
          clientPolicy: pgOAuthClientPolicyStore(pool),
          embedOrigins,
          redirectUriPolicy,
          logger,
        }),
      );
      router.service(EmbeddingService, embeddingService(embedOrigins));
    },
  });
  // The admin API on a port of its own: the gateway, meeting and webhook reach GRPC_PORT, and a
  // network policy can admit only operators here (in Kubernetes: the CLI in the pod, on loopback).
  const adminServer = await serve({
    name: `${service.name}-admin`,
    port: config.ADMIN_PORT,
    services: [IdentityAdminService],
    routes: (router) => {
      const oauthClients = oauthClientAdmin({ clients: pgOAuthClientStore(pool), credentials, redirectUriPolicy, logger });
      router.service(
        IdentityAdminService,
        { ...adminService({ accounts, credentials, logger }), ...oauthClients },
        {
          requestGate: requireAdminToken(config.ADMIN_TOKEN),
        },
      );
    },
  });
  if (config.usingEphemeralOAuthCookieKeys) {
    logger.warn(
      "DEVELOPMENT DEFAULT IN USE: OAUTH_COOKIE_KEYS is unset, so OAuth sign-in cookies are signed with a random per-process key: sign-in sessions end on restart and are not shared between replicas.",
    );
  }
  const authorizationServer = await startAuthorizationServer({
    pool,
    credentials,
    publicUrl: config.PUBLIC_URL,
    host: config.HOST,
    port: config.OAUTH_PORT,
    cookieKeys: config.oauthCookieKeys,
    grantLifetimeSeconds: config.OAUTH_GRANT_LIFETIME_SECONDS,
    signIn,
    redis,
    keyPrefix: config.REDIS_KEY_PREFIX,
    logger,
    drain,
  });
  return {
    // The listeners close after the drain (shutdown-drain.ts).
    stopAccepting: afterDrain(drain, [() => server.close(), () => adminServer.close(), () => authorizationServer.close()]),
    // The last uses are written before the cache and the pool (runService ends it) they need close.
    thenClose: [() => sessions.close(), () => lastUsed.close(), () => cache.close()],
  };
});

/** Redis when REDIS_URL is set (shared by every replica, so revocation reaches all of them); in-process otherwise. */
function createCredentialCache(config: Config, redis: Redis | undefined, logger: Logger): CredentialCache {
  if (!redis) {
    logger.info("REDIS_URL is unset: credentials are cached in-process and sign-in failures counted in-process (fine for one identity replica)");
    return createMemoryCredentialCache();
  }
  return createRedisCredentialCache(redis, { keyPrefix: config.REDIS_KEY_PREFIX, authenticationKey: credentialCacheKeyOf(config, logger), logger });
}
