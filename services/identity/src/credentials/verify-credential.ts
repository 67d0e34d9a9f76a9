import { unauthenticated, type Logger } from "@svc/platform";
import type { CredentialCache } from "@svc/platform";
import { hashToken } from "@svc/platform";
import type { CredentialVerifier, VerifiedCredential } from "./verified-credential.ts";

/**
 * How long a revocation marker stays in the cache: longer than any cached credential lives, so
 * a verification that read the database before the revocation can never re-cache it.
 */
export const REVOCATION_MARKER_TTL_MS = 120_000;

export interface CredentialVerificationOptions {
  verifiers: CredentialVerifier[];
  cache: CredentialCache;
  /** At most 60 s: how long a positive answer may be served without asking the database. */
  cacheTtlMs: number;
  /** Told about every successful use of an API key (it throttles and batches the writes). */
  onApiKeyUse: (apiKeyId: string) => void;
  logger: Logger;
  now?: () => number;
}

export interface CredentialVerification {
  /** Resolves a bearer token to its credential; UNAUTHENTICATED when it is unknown, expired or revoked. */
  verify(token: string): Promise<VerifiedCredential>;
  /** Makes the next verification of the token with this hash fail, on every replica sharing the cache. */
  revoke(tokenHash: string): Promise<void>;
}

const invalidToken = () => unauthenticated("Invalid, expired or revoked token");

/**
 * VerifyCredential's logic: cache first, then the verifier of the token's kind. Only positive
 * answers are cached (an unknown token costs one indexed look-up, and a key created a moment
 * ago is never refused from a stale negative entry). A cache fault is logged and treated as a
 * miss: verification then answers from the database, which is always right.
 */
export function createCredentialVerification(options: CredentialVerificationOptions): CredentialVerification {
  const { cache, logger, onApiKeyUse } = options;
  const now = options.now ?? Date.now;
  const verifiers = [...options.verifiers].sort((a, b) => b.prefix.length - a.prefix.length);

  const accept = (credential: VerifiedCredential) => {
    if (credential.apiKeyId) onApiKeyUse(credential.apiKeyId);
    return credential;
  };

  return {
    async verify(token) {
      const tokenHash = hashToken(token);
      const cached = await cache.get(tokenHash).catch((error: unknown) => {
        logger.warn({ err: error }, "credential cache read failed; verifying against the database");
        return undefined;
      });
      if (cached === "revoked") throw invalidToken();
      if (cached && (cached.expiresAt === undefined || cached.expiresAt > now())) return accept(cached);

      const verifier = verifiers.find((candidate) => token.startsWith(candidate.prefix));
      const credential = verifier ? await verifier.verify(token, tokenHash) : null;
      if (!credential) throw invalidToken();
      const ttlMs = Math.min(options.cacheTtlMs, credential.expiresAt === undefined ? Infinity : credential.expiresAt - now());
      if (ttlMs > 0) {
        await cache.setIfAbsent(tokenHash, credential, ttlMs).catch((error: unknown) => {
          logger.warn({ err: error }, "credential cache write failed");
        });
      }
      return accept(credential);
    },
    async revoke(tokenHash) {
      await cache.markRevoked(tokenHash, REVOCATION_MARKER_TTL_MS);
    },
  };
}
