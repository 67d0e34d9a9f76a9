import { Code, ConnectError } from "@connectrpc/connect";
import { createLogger } from "@svc/platform";
import { describe, expect, it } from "vitest";
import { createMemoryCredentialCache, hashToken, type CredentialCache } from "@svc/platform";
import type { CredentialVerifier, VerifiedCredential } from "./credential-verifier.ts";
import { createCredentialVerification } from "./verify-credential.ts";

const logger = createLogger("test", "silent");
const apiKeyCredential: VerifiedCredential = { kind: "api_key", userId: "u1", orgId: "o1", role: "admin", scopes: [], clientId: "", apiKeyId: "k1" };
const oauthCredential: VerifiedCredential = { kind: "oauth", userId: "u2", orgId: "o2", role: "member", scopes: ["meeting.create"], clientId: "c1" };

/** A verifier over a fixed table of tokens, counting how often it was asked. */
function tableVerifier(prefix: string, table: Record<string, VerifiedCredential>) {
  const verifier = {
    prefix,
    asked: 0,
    async verify(token: string, tokenHash: string) {
      verifier.asked += 1;
      expect(tokenHash).toBe(hashToken(token));
      return table[token] ?? null;
    },
  } satisfies CredentialVerifier & { asked: number };
  return verifier;
}

function setUp(options: { cache?: CredentialCache; now?: () => number; cacheTtlMs?: number } = {}) {
  const apiKeys = tableVerifier("svc_", { svc_key: apiKeyCredential });
  const oauth = tableVerifier("svc_oauth_", { svc_oauth_token: { ...oauthCredential } });
  const used: string[] = [];
  const verification = createCredentialVerification({
    verifiers: [apiKeys, oauth],
    cache: options.cache ?? createMemoryCredentialCache(),
    cacheTtlMs: options.cacheTtlMs ?? 60_000,
    onApiKeyUse: (id) => used.push(id),
    logger,
    now: options.now,
  });
  return { verification, apiKeys, oauth, used };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "ok",
    (error: unknown) => ConnectError.from(error).code,
  );

describe("credential verification", () => {
  it("hands each token to the verifier of its longest matching prefix", async () => {
    const { verification, apiKeys, oauth } = setUp();
    expect(await verification.verify("svc_oauth_token")).toMatchObject({ kind: "oauth", clientId: "c1" });
    expect(oauth.asked).toBe(1);
    expect(apiKeys.asked).toBe(0);
    expect(await verification.verify("svc_key")).toMatchObject({ kind: "api_key", userId: "u1" });
    expect(apiKeys.asked).toBe(1);
  });

  it("refuses tokens no verifier claims, or that their verifier does not know, with UNAUTHENTICATED", async () => {
    const { verification } = setUp();
    expect(await codeOf(verification.verify("ghp_something"))).toBe(Code.Unauthenticated);
    expect(await codeOf(verification.verify("svc_unknown"))).toBe(Code.Unauthenticated);
  });

  it("answers a repeated verification from the cache, and records every API key use", async () => {
    const { verification, apiKeys, used } = setUp();
    await verification.verify("svc_key");
    await verification.verify("svc_key");
    expect(apiKeys.asked).toBe(1);
    expect(used).toEqual(["k1", "k1"]);
  });

  it("remembers a refusal briefly: an unknown token presented again and again is one database look-up per 10 s", async () => {
    const { verification, apiKeys } = setUp();
    for (let attempt = 0; attempt < 50; attempt++) expect(await codeOf(verification.verify("svc_unknown"))).toBe(Code.Unauthenticated);
    expect(apiKeys.asked).toBe(1);
    // The known key is unaffected by the refusal of another.
    await verification.verify("svc_key");
    expect(apiKeys.asked).toBe(2);
  });

  it("refuses a revoked token at once although it was cached", async () => {
    const { verification } = setUp();
    await verification.verify("svc_key");
    await verification.revoke(hashToken("svc_key"));
    expect(await codeOf(verification.verify("svc_key"))).toBe(Code.Unauthenticated);
  });

  it("never caches a token past its own expiry", async () => {
    let now = 1_000_000;
    const cache = createMemoryCredentialCache();
    const { verification, oauth } = setUp({ cache, now: () => now });
    const table = { svc_oauth_token: { ...oauthCredential, expiresAt: now + 5_000 } };
    oauth.verify = async (token) => {
      oauth.asked += 1;
      return table[token as keyof typeof table] ?? null;
    };
    await verification.verify("svc_oauth_token");
    now += 6_000;
    await verification.verify("svc_oauth_token");
    expect(oauth.asked).toBe(2);
  });

  it("falls back to the verifier when the cache fails", async () => {
    const broken: CredentialCache = {
      get: () => Promise.reject(new Error("redis down")),
      setIfAbsent: () => Promise.reject(new Error("redis down")),
      markUnknown: () => Promise.reject(new Error("redis down")),
      markRevoked: () => Promise.reject(new Error("redis down")),
      forget: () => Promise.reject(new Error("redis down")),
      close: async () => undefined,
    };
    const { verification } = setUp({ cache: broken });
    expect(await verification.verify("svc_key")).toMatchObject({ userId: "u1" });
    await expect(verification.revoke(hashToken("svc_key"))).rejects.toThrow("redis down");
  });
});

describe("the in-process credential cache", () => {
  it("does not let a verification overwrite a revocation marker (the race with a concurrent revocation)", async () => {
    const cache = createMemoryCredentialCache();
    await cache.markRevoked("h", 60_000);
    await cache.setIfAbsent("h", apiKeyCredential, 60_000);
    expect(await cache.get("h")).toBe("revoked");
  });

  it("forgets entries after their time to live", async () => {
    const cache = createMemoryCredentialCache();
    await cache.setIfAbsent("h", apiKeyCredential, 20);
    expect(await cache.get("h")).toEqual(apiKeyCredential);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await cache.get("h")).toBeUndefined();
  });
});
