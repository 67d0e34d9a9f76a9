import path from "node:path";
import { Redis } from "ioredis";
import { createLogger, createPool, loadConfigOrExit, migrate, runUntilSignalled, startServer, type Logger } from "@svc/platform";
import { IdentityAdminService, IdentityService } from "@svc/proto/svc/identity/v1/identity_pb";
import { adminService } from "./admin/admin-service.ts";
import { requireAdminToken } from "./admin/admin-token.ts";
import { configSchema, type Config } from "./config.ts";
import { apiKeyVerifier } from "./credentials/api-key-verifier.ts";
import { createMemoryCredentialCache, createRedisCredentialCache, type CredentialCache } from "./credentials/credential-cache.ts";
import { createLastUsedRecorder } from "./credentials/last-used-recorder.ts";
import { createCredentialVerification } from "./credentials/verify-credential.ts";
import { recordApiKeyUses } from "./db/api-keys.ts";
import { identityService } from "./identity-service.ts";

const SERVICE = "identity";
const SCHEMA = "identity";

const config = loadConfigOrExit(SERVICE, configSchema);
const logger = createLogger(SERVICE, config.LOG_LEVEL);

runUntilSignalled(logger, async () => {
  if (config.usingDevelopmentAdminToken) {
    logger.warn(
      "DEVELOPMENT DEFAULT IN USE: ADMIN_TOKEN is unset, so the administrator API accepts the well-known development token. Set ADMIN_TOKEN for anything but local development.",
    );
  }
  await migrate({ databaseUrl: config.DATABASE_URL, schema: SCHEMA, dir: path.join(import.meta.dirname, "../migrations"), logger });
  const pool = createPool({ databaseUrl: config.DATABASE_URL, schema: SCHEMA, logger });
  const cache = await createCredentialCache(config, logger);
  const lastUsed = createLastUsedRecorder({
    write: (uses) => recordApiKeyUses(pool, uses),
    flushIntervalMs: config.LAST_USED_FLUSH_INTERVAL_MS,
    logger,
  });
  const credentials = createCredentialVerification({
    verifiers: [apiKeyVerifier(pool)],
    cache,
    cacheTtlMs: config.CREDENTIAL_CACHE_TTL_SECONDS * 1000,
    onApiKeyUse: lastUsed.record,
    logger,
  });
  const server = await startServer({
    name: SERVICE,
    host: config.HOST,
    port: config.GRPC_PORT,
    logger,
    services: [IdentityService, IdentityAdminService],
    routes: (router) => {
      router.service(IdentityService, identityService(credentials));
      // The OAuth-client RPCs are not implemented here: Connect answers them UNIMPLEMENTED.
      router.service(IdentityAdminService, adminService({ db: pool, credentials, logger }), {
        requestGate: requireAdminToken(config.ADMIN_TOKEN),
      });
    },
    isServing: async () => pool.query("select 1").then(() => true, () => false),
  });
  // Closed in reverse: stop serving, then write the last uses, then close the cache and the pool.
  return [() => pool.end(), () => cache.close(), () => lastUsed.close(), () => server.close()];
});

/** Redis when REDIS_URL is set (shared by every replica, so revocation reaches all of them); in-process otherwise. */
async function createCredentialCache(config: Config, logger: Logger): Promise<CredentialCache> {
  if (!config.REDIS_URL) {
    logger.info("REDIS_URL is unset: credentials are cached in-process (fine for one identity replica)");
    return createMemoryCredentialCache();
  }
  // Commands fail fast while Redis is unreachable, and verification then asks the database.
  const redis = new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1_000 });
  redis.on("error", (error: Error) => logger.warn({ error: error.message }, "redis connection problem"));
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      logger.warn("redis is not reachable yet; verifying credentials against the database until it is");
      resolve();
    }, 5_000);
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return createRedisCredentialCache(redis, config.REDIS_KEY_PREFIX);
}
