import { createHmac, timingSafeEqual } from "node:crypto";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import type { Logger } from "../logger.ts";
import type { VerifiedCredential } from "./verified-credential.ts";

/**
 * What the cache holds for a token: its verified credential, a marker that it was revoked, or a
 * short-lived marker that identity found no such token (so a token presented again and again is
 * not one database query each).
 */
export type CacheEntry = VerifiedCredential | "revoked" | "unknown";

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
  /** Stores the entry unless an authentic one (for example a revocation marker) is already there. */
  setIfAbsent(tokenHash: string, credential: VerifiedCredential, ttlMs: number): Promise<void>;
  /** Remembers for `ttlMs` that no such token exists, unless an authentic entry is already there. */
  markUnknown(tokenHash: string, ttlMs: number): Promise<void>;
  /** Replaces whatever is cached with the revocation marker for `ttlMs`. */
  markRevoked(tokenHash: string, ttlMs: number): Promise<void>;
  /** Drops a cached answer (not a revocation marker), so the next verification reads the database. */
  forget(tokenHash: string): Promise<void>;
  close(): Promise<void>;
}

export interface RedisCredentialCacheOptions {
  keyPrefix: string;
  /** CREDENTIAL_CACHE_KEY: authenticates every entry (see sealEntry). */
  authenticationKey: string;
  logger: Logger;
}

/**
 * Any process that can write Redis could otherwise mint a credential by writing an entry, so each
 * value is `<HMAC-SHA256(key, tokenHash \n payload), base64url>.<payload>`: bound to the token hash
 * it is stored under (an authentic entry copied to another token's key fails) and to its content.
 * An entry that fails the check is treated as a miss, never as an answer: verification then asks
 * identity, which asks the database (always right) and replaces the forged entry.
 */
function entrySeal(authenticationKey: string) {
  const macOf = (tokenHash: string, payload: string) => createHmac("sha256", authenticationKey).update(`${tokenHash}\n${payload}`).digest();
  return {
    seal: (tokenHash: string, payload: string) => `${macOf(tokenHash, payload).toString("base64url")}.${payload}`,
    /** The payload of an authentic value; undefined for anything else. */
    open(tokenHash: string, value: string): string | undefined {
      const dot = value.indexOf(".");
      if (dot < 0) return undefined;
      const presented = Buffer.from(value.slice(0, dot), "base64url");
      const payload = value.slice(dot + 1);
      const expected = macOf(tokenHash, payload);
      return presented.length === expected.length && timingSafeEqual(presented, expected) ? payload : undefined;
    },
  };
}

// Replaces the value only if it is still the one read (a forged entry), so a revocation marker
// written in between is never overwritten.
const REPLACE_IF_UNCHANGED = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end";
// Deletes the entry unless it is the (authentic) revocation marker.
const DELETE_UNLESS_REVOKED = "if redis.call('GET', KEYS[1]) ~= ARGV[1] then redis.call('DEL', KEYS[1]) end";

export function createRedisCredentialCache(redis: Redis, options: RedisCredentialCacheOptions): CredentialCache {
  const { seal, open } = entrySeal(options.authenticationKey);
  const keyOf = (tokenHash: string) => `${options.keyPrefix}cred:${tokenHash}`;

  /** The authentic payload under the key, or undefined (absent, or forged: logged). */
  const read = async (tokenHash: string): Promise<{ value: string | null; payload: string | undefined }> => {
    const value = await redis.get(keyOf(tokenHash));
    if (value === null) return { value, payload: undefined };
    const payload = open(tokenHash, value);
    if (payload === undefined) {
      options.logger.warn({ tokenHash: tokenHash.slice(0, 16) }, "credential cache entry failed authentication; ignored (check who can write this Redis)");
    }
    return { value, payload };
  };

  /** SET NX, and if what is there is not authentic, replace it (atomically, only if unchanged). */
  const storeUnlessAuthentic = async (tokenHash: string, payload: string, ttlMs: number) => {
    const sealed = seal(tokenHash, payload);
    const stored = await redis.set(keyOf(tokenHash), sealed, "PX", ttlMs, "NX");
    if (stored === "OK") return;
    const current = await read(tokenHash);
    if (current.value !== null && current.payload === undefined) {
      await redis.eval(REPLACE_IF_UNCHANGED, 1, keyOf(tokenHash), current.value, sealed, String(ttlMs));
    }
  };

  return {
    async get(tokenHash) {
      const { payload } = await read(tokenHash);
      if (payload === undefined) return undefined;
      if (payload === "revoked" || payload === "unknown") return payload;
      return JSON.parse(payload) as VerifiedCredential;
    },
    setIfAbsent: (tokenHash, credential, ttlMs) => storeUnlessAuthentic(tokenHash, JSON.stringify(credential), ttlMs),
    markUnknown: (tokenHash, ttlMs) => storeUnlessAuthentic(tokenHash, "unknown", ttlMs),
    async markRevoked(tokenHash, ttlMs) {
      await redis.set(keyOf(tokenHash), seal(tokenHash, "revoked"), "PX", ttlMs);
    },
    async forget(tokenHash) {
      // Atomic: a revocation marker written meanwhile is kept.
      await redis.eval(DELETE_UNLESS_REVOKED, 1, keyOf(tokenHash), seal(tokenHash, "revoked"));
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
    async markUnknown(tokenHash, ttlMs) {
      if (!entries.has(tokenHash)) entries.set(tokenHash, "unknown", { ttl: ttlMs });
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
