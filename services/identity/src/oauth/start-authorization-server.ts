import type { Logger, ShutdownDrain } from "@svc/platform";
import type { Pool } from "@svc/platform/db";
import type { Redis } from "ioredis";
import type { CredentialVerification } from "../credentials/verify-credential.ts";
import { pgOAuthArtifactStore } from "../db/pg-oauth-artifact-store.ts";
import { pgOAuthClientPolicyStore } from "../db/pg-oauth-client-policy-store.ts";
import { pgOAuthClientStore } from "../db/pg-oauth-client-store.ts";
import type { ProviderArtifactStore } from "../oauth-stores.ts";
import type { PasswordSignIn } from "../sign-in/password-sign-in.ts";
import { userAccountDirectory } from "./interaction/account-directory.ts";
import { interactionSignInAttempts } from "./interaction/sign-in-attempts.ts";
import { createOAuthProvider, LIFETIMES } from "./provider/provider-configuration.ts";
import { startOAuthHttpListener } from "./http-listener.ts";

export interface AuthorizationServerOptions {
  /** Answers with `Connection: close` while the process drains before stopping. */
  drain?: ShutdownDrain;
  pool: Pool;
  credentials: CredentialVerification;
  /** PUBLIC_URL: the origin browsers and applications use (the gateway's). */
  publicUrl: string;
  host: string;
  port: number;
  cookieKeys: string[];
  /** How long an authorization lasts however often it is refreshed (OAUTH_GRANT_LIFETIME_SECONDS). */
  grantLifetimeSeconds: number;
  /** The throttled password sign-in the dashboard uses too. */
  signIn: PasswordSignIn;
  /** Counts of failed sign-ins per interaction, shared by the replicas (in-process without). */
  redis?: Redis | undefined;
  keyPrefix: string;
  logger: Logger;
}

const PURGE_INTERVAL_MS = 10 * 60 * 1000;
/** Expired rows are kept a day for diagnosis; a replayed expired token is refused either way. */
const PURGE_GRACE_SECONDS = 24 * 60 * 60;

/** Wires and starts the OAuth 2.0 authorization server (oidc-provider) on its own HTTP port. */
export async function startAuthorizationServer(options: AuthorizationServerOptions): Promise<{ port: number; close(): Promise<void> }> {
  const { pool, credentials, logger } = options;
  const artifacts = pgOAuthArtifactStore(pool);
  const provider = createOAuthProvider({
    issuer: new URL(options.publicUrl).origin,
    artifacts,
    clients: pgOAuthClientStore(pool),
    accounts: userAccountDirectory(pool, options.signIn),
    clientPolicy: pgOAuthClientPolicyStore(pool),
    cookieKeys: options.cookieKeys,
    grantLifetimeSeconds: options.grantLifetimeSeconds,
    signInAttempts: interactionSignInAttempts({ redis: options.redis, keyPrefix: options.keyPrefix, durationSeconds: LIFETIMES.interaction, logger }),
    logger,
    async accessTokensRevoked(tokenHashes) {
      // The rows are already deleted; the cache marker makes every replica refuse the tokens
      // now rather than when their cached answer (≤ 60 s) expires. A cache fault must not turn
      // the OAuth response into a server error, so it is logged.
      await Promise.all(tokenHashes.map((tokenHash) => credentials.revoke(tokenHash))).catch((error: unknown) => {
        logger.error({ err: error, count: tokenHashes.length }, "revoked access tokens could not be marked in the verification cache");
      });
    },
  });
  const listener = await startOAuthHttpListener({
    provider,
    publicUrl: options.publicUrl,
    host: options.host,
    port: options.port,
    logger,
    drain: options.drain,
  });
  const purge = setInterval(() => void purgeExpired(artifacts, logger), PURGE_INTERVAL_MS);
  purge.unref();
  return {
    port: listener.port,
    async close() {
      clearInterval(purge);
      await listener.close();
    },
  };
}

async function purgeExpired(artifacts: ProviderArtifactStore, logger: Logger) {
  try {
    let removed = 0;
    for (let batch = await artifacts.purgeExpired(PURGE_GRACE_SECONDS); batch > 0; batch = await artifacts.purgeExpired(PURGE_GRACE_SECONDS)) {
      removed += batch;
    }
    if (removed > 0) logger.debug({ removed }, "expired OAuth artifacts removed");
  } catch (error) {
    logger.warn({ err: error }, "could not remove expired OAuth artifacts");
  }
}
