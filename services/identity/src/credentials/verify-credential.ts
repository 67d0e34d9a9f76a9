import { unauthenticated, type Logger } from "@svc/platform";
import type { CredentialCache } from "@svc/platform";
import { hashToken } from "@svc/platform";
import type { CredentialVerifier, VerifiedCredential } from "./credential-verifier.ts";

/**
 * How long a revocation marker stays in the cache: longer than any cached credential lives, so
 * a verification that read the database before the revocation can never re-cache it.
 */
export const REVOCATION_MARKER_TTL_MS = 120_000;

/**
 * How long a refusal of a token the database does not know is remembered: short, but enough that
 * a client (or an attacker) repeating a bad token costs one database query per 10 s, not one per
 * request. A reactivated user's tokens are forgotten explicitly (management-service).
 */
export const UNKNOWN_TOKEN_TTL_MS = 10_000;

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
 * VerifyCredential's logic: cache first, then the verifier of the token's kind. Positive answers
 * are cached for up to `cacheTtlMs`, refusals briefly (UNKNOWN_TOKEN_TTL_MS; a new key or token
 * is random, so nobody can have presented it before it existed). A cache fault is logged and
 * treated as a miss: verification then answers from the database, which is always right.
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
      if (cached === "revoked" || cached === "unknown") throw invalidToken();
      if (cached && (cached.expiresAt === undefined || cached.expiresAt > now())) return accept(cached);

      const verifier = verifiers.find((candidate) => token.startsWith(candidate.prefix));
      if (!verifier) throw invalidToken();
      const credential = await verifier.verify(token, tokenHash);
      if (!credential) {
        await cache.markUnknown(tokenHash, UNKNOWN_TOKEN_TTL_MS).catch((error: unknown) => {
          logger.warn({ err: error }, "credential cache write failed");
        });
        throw invalidToken();
      }
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
