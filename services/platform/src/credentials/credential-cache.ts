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
  /** CREDENTIAL_CACHE_KEY: authenticates every entry (see entrySeal). */
  authenticationKey: string;
  logger: Logger;
  /** The clock that stamps and checks each entry's notAfter (tests move it). */
  now?: () => number;
}

/** How far past its notAfter an entry may be read before that is worth a warning (replica clock skew, Redis expiry lag). */
const STALE_WARNING_AFTER_MS = 5_000;

/**
 * Any process that can write Redis could otherwise mint a credential by writing an entry, so each
 * value is `<HMAC-SHA256(key, tokenHash \n notAfter.content), base64url>.<notAfter>.<content>`:
 * bound to the token hash it is stored under (an authentic entry copied to another token's key
 * fails), to its content, and to an absolute expiry (epoch ms). The expiry is what Redis's own TTL
 * cannot give: someone who can write Redis can save an authentic entry and write it back later
 * without a TTL (after the key is revoked, or its user deactivated or demoted); inside the MAC,
 * `notAfter` makes that copy worthless once the entry's lifetime (at most 60 s) is over.
 * An entry that fails the check, or is past its notAfter, is treated as a miss, never as an
 * answer: verification then asks identity, which asks the database (always right) and replaces it.
 */
function entrySeal(authenticationKey: string) {
  const macOf = (tokenHash: string, payload: string) => createHmac("sha256", authenticationKey).update(`${tokenHash}\n${payload}`).digest();
  return {
    seal: (tokenHash: string, content: string, notAfter: number) => {
      const payload = `${notAfter}.${content}`;
      return `${macOf(tokenHash, payload).toString("base64url")}.${payload}`;
    },
    /** The content and notAfter of an authentic value; undefined for anything else. */
    open(tokenHash: string, value: string): { content: string; notAfter: number } | undefined {
      const dot = value.indexOf(".");
      if (dot < 0) return undefined;
      const presented = Buffer.from(value.slice(0, dot), "base64url");
      const payload = value.slice(dot + 1);
      const expected = macOf(tokenHash, payload);
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
      const separator = payload.indexOf(".");
      const notAfter = Number(payload.slice(0, separator));
      if (separator < 0 || !Number.isSafeInteger(notAfter)) return undefined;
      return { content: payload.slice(separator + 1), notAfter };
    },
  };
}

// Replaces the value only if it is still the one read (a forged or stale entry), so a revocation
// marker written in between is never overwritten.
const REPLACE_IF_UNCHANGED = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end";
// Deletes the entry only if it is still the one read (so a revocation marker written since stays).
const DELETE_IF_UNCHANGED = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end";

export function createRedisCredentialCache(redis: Redis, options: RedisCredentialCacheOptions): CredentialCache {
  const { seal, open } = entrySeal(options.authenticationKey);
  const now = options.now ?? Date.now;
  const keyOf = (tokenHash: string) => `${options.keyPrefix}cred:${tokenHash}`;

  /** The authentic, current content under the key, or undefined (absent, forged or stale: logged). */
  const read = async (tokenHash: string): Promise<{ value: string | null; content: string | undefined }> => {
    const value = await redis.get(keyOf(tokenHash));
    if (value === null) return { value, content: undefined };
    const opened = open(tokenHash, value);
    if (opened === undefined) {
      options.logger.warn({ tokenHash: tokenHash.slice(0, 16) }, "credential cache entry failed authentication; ignored (check who can write this Redis)");
      return { value, content: undefined };
    }
    const staleForMs = now() - opened.notAfter;
    if (staleForMs >= 0) {
      if (staleForMs > STALE_WARNING_AFTER_MS) {
        options.logger.warn(
          { tokenHash: tokenHash.slice(0, 16), staleForMs },
          "credential cache entry is past its notAfter (written back after it expired?); ignored (check who can write this Redis)",
        );
      }
      return { value, content: undefined };
    }
    return { value, content: opened.content };
  };

  /** SET NX, and if what is there is not authentic and current, replace it (atomically, only if unchanged). */
  const storeUnlessAuthentic = async (tokenHash: string, content: string, ttlMs: number) => {
    const sealed = seal(tokenHash, content, now() + ttlMs);
    const stored = await redis.set(keyOf(tokenHash), sealed, "PX", ttlMs, "NX");
    if (stored === "OK") return;
    const current = await read(tokenHash);
    if (current.value !== null && current.content === undefined) {
      await redis.eval(REPLACE_IF_UNCHANGED, 1, keyOf(tokenHash), current.value, sealed, String(ttlMs));
    }
  };

  return {
    async get(tokenHash) {
      const { content } = await read(tokenHash);
      if (content === undefined) return undefined;
      if (content === "revoked" || content === "unknown") return content;
      return JSON.parse(content) as VerifiedCredential;
    },
    setIfAbsent: (tokenHash, credential, ttlMs) => storeUnlessAuthentic(tokenHash, JSON.stringify(credential), ttlMs),
    markUnknown: (tokenHash, ttlMs) => storeUnlessAuthentic(tokenHash, "unknown", ttlMs),
    async markRevoked(tokenHash, ttlMs) {
      await redis.set(keyOf(tokenHash), seal(tokenHash, "revoked", now() + ttlMs), "PX", ttlMs);
    },
    async forget(tokenHash) {
      const current = await read(tokenHash);
      if (current.value === null || current.content === "revoked") return;
      // Atomic: a revocation marker written since the read is kept.
      await redis.eval(DELETE_IF_UNCHANGED, 1, keyOf(tokenHash), current.value);
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
