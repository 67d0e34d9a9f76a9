import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import type { VerifiedCredential } from "./verified-credential.ts";

/** What the cache holds for a token: its verified credential, or a marker that it was revoked. */
export type CacheEntry = VerifiedCredential | "revoked";

/**
 * The credential-verification cache, keyed by the token's SHA-256 (never the token). Identity
 * writes it (VerifyCredential and revocation); every caller reads it, so a warm credential costs
 * one Redis GET instead of an RPC. Two implementations: Redis (shared by every replica of every
 * service) and in-process (the embedded default, where only identity itself can use it).
 *
 * Revocation writes a "revoked" marker instead of deleting the entry, and verification stores
 * with set-if-absent: a verification that read the database just before a revocation committed
 * therefore cannot put the revoked credential back into the cache afterwards.
 */
export interface CredentialCache {
  get(tokenHash: string): Promise<CacheEntry | undefined>;
  /** Stores the entry unless one (for example a revocation marker) is already there. */
  setIfAbsent(tokenHash: string, credential: VerifiedCredential, ttlMs: number): Promise<void>;
  /** Replaces whatever is cached with the revocation marker for `ttlMs`. */
  markRevoked(tokenHash: string, ttlMs: number): Promise<void>;
  /** Drops a cached answer (not a revocation marker), so the next verification reads the database. */
  forget(tokenHash: string): Promise<void>;
  close(): Promise<void>;
}

export function createRedisCredentialCache(redis: Redis, keyPrefix: string): CredentialCache {
  const keyOf = (tokenHash: string) => `${keyPrefix}cred:${tokenHash}`;
  return {
    async get(tokenHash) {
      const value = await redis.get(keyOf(tokenHash));
      if (value === null) return undefined;
      return value === "revoked" ? "revoked" : (JSON.parse(value) as VerifiedCredential);
    },
    async setIfAbsent(tokenHash, credential, ttlMs) {
      await redis.set(keyOf(tokenHash), JSON.stringify(credential), "PX", ttlMs, "NX");
    },
    async markRevoked(tokenHash, ttlMs) {
      await redis.set(keyOf(tokenHash), "revoked", "PX", ttlMs);
    },
    async forget(tokenHash) {
      // Atomic: a revocation marker written meanwhile is kept.
      await redis.eval("if redis.call('GET', KEYS[1]) ~= 'revoked' then redis.call('DEL', KEYS[1]) end", 1, keyOf(tokenHash));
    },
    async close() {
      await redis.quit();
    },
  };
}

/** In-process cache, for the embedded default where one identity process serves everyone. */
export function createMemoryCredentialCache(maxEntries = 100_000): CredentialCache {
  const entries = new LRUCache<string, CacheEntry>({ max: maxEntries, ttlAutopurge: false, ttl: 60_000 });
  return {
    async get(tokenHash) {
      return entries.get(tokenHash);
    },
    async setIfAbsent(tokenHash, credential, ttlMs) {
      if (!entries.has(tokenHash)) entries.set(tokenHash, credential, { ttl: ttlMs });
    },
    async markRevoked(tokenHash, ttlMs) {
      entries.set(tokenHash, "revoked", { ttl: ttlMs });
    },
    async forget(tokenHash) {
      if (entries.get(tokenHash) !== "revoked") entries.delete(tokenHash);
    },
    async close() {
      entries.clear();
    },
  };
}
