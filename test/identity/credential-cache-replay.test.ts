import { randomBytes } from "node:crypto";
import { createCallerResolver, createLogger, createRedisCredentialCache, hashToken, type VerifiedCredential } from "@svc/platform";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCredentialVerification, REVOCATION_MARKER_TTL_MS } from "../../services/identity/src/credentials/verify-credential.ts";
import { infra, uniqueName } from "../support/infra.ts";

// Issue 33, finding 1: someone who can write Redis (the case the entries' MAC exists for) and holds
// an API key saves the key's sealed cache entry while it is valid, waits for the key to be revoked,
// then writes the saved value back without a TTL. Before the fix every reader accepted it for ever.
// These tests replay exactly that against the real Redis, with a clock the test moves.

const authenticationKey = randomBytes(32).toString("hex");
const logger = createLogger("test", "silent");
const apiKey = `svc_${randomBytes(32).toString("base64url")}`;
const credential: VerifiedCredential = { kind: "api_key", userId: "u-1", orgId: "o-1", role: "admin", scopes: [], clientId: "", apiKeyId: "k-1" };

let redis: Redis;
let keyPrefix: string;
let clock: number;
const now = () => clock;
const cacheKeyOf = (token: string) => `${keyPrefix}cred:${hashToken(token)}`;
const cache = () => createRedisCredentialCache(redis, { keyPrefix, authenticationKey, logger, now });

beforeAll(() => {
  redis = new Redis(infra.redisUrl());
});
afterAll(() => redis?.disconnect());

/** identity's verification over the cache, with a database that knows the key until `revoked` says otherwise. */
function identityOver(state: { revoked: boolean }) {
  return createCredentialVerification({
    verifiers: [{ prefix: "svc_", verify: async (token) => (token === apiKey && !state.revoked ? credential : null) }],
    cache: cache(),
    cacheTtlMs: 60_000,
    onApiKeyUse: () => undefined,
    logger,
    now,
  });
}

describe("a revoked API key's saved cache entry, written back to Redis without a TTL", () => {
  it("is a miss once the entry's notAfter has passed, so identity refuses the key from the database", async () => {
    keyPrefix = `${uniqueName("replay")}:`;
    clock = Date.now();
    const state = { revoked: false };
    const identity = identityOver(state);
    expect(await identity.verify(apiKey)).toMatchObject({ userId: "u-1", role: "admin" });
    const saved = (await redis.get(cacheKeyOf(apiKey)))!;
    expect(saved).not.toBeNull();

    // The owner revokes the key; identity writes the revocation marker.
    state.revoked = true;
    clock += 1_000;
    await identity.revoke(hashToken(apiKey));
    // After the marker's lifetime, the attacker writes the saved entry back, with no TTL at all.
    clock += REVOCATION_MARKER_TTL_MS + 1_000;
    await redis.set(cacheKeyOf(apiKey), saved);
    expect(await redis.pttl(cacheKeyOf(apiKey))).toBe(-1);

    expect(await cache().get(hashToken(apiKey))).toBeUndefined();
    await expect(identity.verify(apiKey)).rejects.toThrow(/revoked token/);
  });

  it("is refused by every other service's caller resolver too, which reads the same cache before asking identity", async () => {
    keyPrefix = `${uniqueName("replay")}:`;
    clock = Date.now();
    const identity = identityOver({ revoked: false });
    await identity.verify(apiKey);
    const saved = (await redis.get(cacheKeyOf(apiKey)))!;
    clock += 10 * 60_000;
    await redis.set(cacheKeyOf(apiKey), saved);

    // The resolver's identity is unreachable: a stale entry must send it there (503), never answer.
    const resolve = createCallerResolver({ identity: "http://127.0.0.1:9", cache: cache(), now });
    await expect(resolve(`Bearer ${apiKey}`)).rejects.toThrow(/identity service unavailable/);
  });

  it("a revocation marker carries its notAfter too: a saved marker written back later is a miss, not a refusal for ever", async () => {
    keyPrefix = `${uniqueName("replay")}:`;
    clock = Date.now();
    await cache().markRevoked(hashToken(apiKey), REVOCATION_MARKER_TTL_MS);
    const marker = (await redis.get(cacheKeyOf(apiKey)))!;
    expect(await cache().get(hashToken(apiKey))).toBe("revoked");
    clock += REVOCATION_MARKER_TTL_MS + 1;
    await redis.set(cacheKeyOf(apiKey), marker);
    expect(await cache().get(hashToken(apiKey))).toBeUndefined();
    // And a fresh verification replaces the stale entry instead of leaving it there.
    const identity = identityOver({ revoked: false });
    expect(await identity.verify(apiKey)).toMatchObject({ userId: "u-1" });
    expect(await cache().get(hashToken(apiKey))).toMatchObject({ userId: "u-1" });
  });

  it("while it is current, an entry is answered from the cache (the check does not turn the cache off)", async () => {
    keyPrefix = `${uniqueName("replay")}:`;
    clock = Date.now();
    await cache().setIfAbsent(hashToken(apiKey), credential, 60_000);
    clock += 59_000;
    expect(await cache().get(hashToken(apiKey))).toMatchObject({ userId: "u-1" });
    clock += 1_000;
    expect(await cache().get(hashToken(apiKey))).toBeUndefined();
  });
});
