import { spawn, type ChildProcess } from "node:child_process";
import { createHash, createHmac, randomBytes, randomUUID } from "node:crypto";
import path from "node:path";
import { HealthCheckRequestSchema, HealthCheckResponseSchema } from "@svc/proto/health/v1/health_pb";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcJsClient } from "../support/grpc-js.ts";
import { freePort } from "../support/infra.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant } from "../support/tenants.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { holdStill } from "../support/hold-still.ts";
import { waitUntilReady } from "../support/process-readiness.ts";

const root = path.resolve(import.meta.dirname, "../..");
const FLUSH_MS = 200;
const CACHE_KEY = randomBytes(32).toString("hex");

let redis: Redis;
const extras: ChildProcess[] = [];
const fixture = useStack({ env: { LAST_USED_FLUSH_INTERVAL_MS: String(FLUSH_MS), CREDENTIAL_CACHE_KEY: CACHE_KEY } });

beforeAll(async () => {
  redis = new Redis(fixture.stack.env.REDIS_URL!);
});
afterAll(async () => {
  for (const child of extras) if (child.exitCode === null) child.kill("SIGTERM");
  await Promise.all(extras.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once("exit", resolve)) : undefined)));
  redis?.disconnect();
});

const auth = (gatewayUrl: string, key: string) => callApi(apiBase({ gatewayUrl }), "POST", "/auth", { key });
const tokenHash = (key: string) => createHash("sha256").update(key).digest("hex");
const cacheKey = (key: string) => `${fixture.stack.env.REDIS_KEY_PREFIX}cred:${tokenHash(key)}`;
/** An entry as identity writes it: `<HMAC(key, tokenHash \n notAfter.content)>.<notAfter>.<content>`, notAfter in epoch ms. */
const sealed = (hash: string, content: string, notAfter = Date.now() + 60_000, key = CACHE_KEY) => {
  const payload = `${notAfter}.${content}`;
  return `${createHmac("sha256", key).update(`${hash}\n${payload}`).digest("base64url")}.${payload}`;
};
const payloadOf = (value: string) => value.slice(value.indexOf(".") + 1);
const notAfterOf = (value: string) => Number(payloadOf(value).split(".")[0]);
const contentOf = (value: string) => payloadOf(value).slice(payloadOf(value).indexOf(".") + 1);
const createMeeting = (key: string) => callApi(apiBase(fixture.stack), "POST", "/meeting", { key, body: { title: "Forged?" } });

/** A second replica of identity and of the gateway, sharing the stack's database and Redis. */
async function startSecondReplicas(): Promise<{ gatewayUrl: string }> {
  const identityPort = await freePort();
  const gatewayPort = await freePort();
  const identityUrl = `http://127.0.0.1:${identityPort}`;
  const launch = (cwd: string, env: Record<string, string>) => {
    const child = spawn(process.execPath, ["--conditions=source", "src/main.ts"], { cwd, env: { ...fixture.stack.env, ...env }, stdio: "ignore" });
    extras.push(child);
    return child;
  };
  // Its OAuth and admin listeners are not used here: ports the kernel picks, never a default one.
  const identity = launch(path.join(root, "services/identity"), { GRPC_PORT: String(identityPort), OAUTH_PORT: "0", ADMIN_PORT: "0" });
  const gateway = launch(path.join(root, "gateway"), { PORT: String(gatewayPort), IDENTITY_URL: identityUrl });
  const health = grpcJsClient(identityUrl);
  await waitUntilReady(
    identity,
    () =>
      health.unary("/grpc.health.v1.Health/Check", HealthCheckRequestSchema, HealthCheckResponseSchema, {}).then(
        () => true,
        () => false,
      ),
    { name: "the second identity" },
  );
  health.close();
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  await waitUntilReady(
    gateway,
    () =>
      fetch(`${gatewayUrl}/healthz`).then(
        (response) => response.ok,
        () => false,
      ),
    { name: "the second gateway" },
  );
  return { gatewayUrl };
}

describe("the verification cache in Redis", () => {
  it("holds a verified key under its SHA-256 for at most 60 s, and answers from there", async () => {
    const tenant = await createTenant(fixture.stack);
    expect((await auth(fixture.stack.gatewayUrl, tenant.apiKey)).status).toBe(200);
    const ttl = await redis.pttl(cacheKey(tenant.apiKey));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await redis.get(cacheKey(tenant.apiKey))).not.toContain(tenant.apiKey);
    // Proof that the cached answer is used: rewrite it (sealed with the deployment's key), and the next verification returns it.
    const value = (await redis.get(cacheKey(tenant.apiKey)))!;
    expect(value).toBe(sealed(tokenHash(tenant.apiKey), contentOf(value), notAfterOf(value)));
    expect(notAfterOf(value) - Date.now()).toBeGreaterThan(50_000);
    expect(notAfterOf(value) - Date.now()).toBeLessThanOrEqual(60_000);
    const cached = JSON.parse(contentOf(value));
    const markedOrgId = randomUUID(); // an organization id only the cache holds
    await redis.set(cacheKey(tenant.apiKey), sealed(tokenHash(tenant.apiKey), JSON.stringify({ ...cached, orgId: markedOrgId })), "PX", 60_000);
    expect(await (await auth(fixture.stack.gatewayUrl, tenant.apiKey)).json()).toMatchObject({ orgId: markedOrgId });
    await redis.del(cacheKey(tenant.apiKey));
    expect(await (await auth(fixture.stack.gatewayUrl, tenant.apiKey)).json()).toMatchObject({ orgId: tenant.orgId });
  });

  it("remembers the refusal of an unknown token for at most 10 s, and refuses it from there", async () => {
    const tenant = await createTenant(fixture.stack);
    // A well-formed key that differs from the real one in its last character (never equal to it).
    const unknown = `${tenant.apiKey.slice(0, -1)}${tenant.apiKey.endsWith("A") ? "B" : "A"}`;
    expect((await auth(fixture.stack.gatewayUrl, unknown)).status).toBe(401);
    const marker = (await redis.get(cacheKey(unknown)))!;
    expect(marker).toBe(sealed(tokenHash(unknown), "unknown", notAfterOf(marker)));
    expect(notAfterOf(marker) - Date.now()).toBeLessThanOrEqual(10_000);
    const ttl = await redis.pttl(cacheKey(unknown));
    expect(ttl).toBeGreaterThan(5_000);
    expect(ttl).toBeLessThanOrEqual(10_000);
    expect((await auth(fixture.stack.gatewayUrl, unknown)).status).toBe(401);
    // The real key is unaffected.
    expect((await auth(fixture.stack.gatewayUrl, tenant.apiKey)).status).toBe(200);
  });

  it("refuses a credential forged into Redis: unsealed, sealed with another key, or an authentic entry copied to another token", async () => {
    const victim = await createTenant(fixture.stack);
    const credential = { kind: "api_key", userId: victim.userId, role: "admin", orgId: victim.orgId, scopes: [], clientId: "" };
    const madeUp = () => `svc_${randomBytes(32).toString("base64url")}`;
    // Plain JSON, as anyone with write access to Redis could write it.
    const plain = madeUp();
    await redis.set(cacheKey(plain), JSON.stringify(credential), "PX", 60_000);
    // Sealed with a key that is not the deployment's (for example the public development key).
    const wrongKey = madeUp();
    await redis.set(
      cacheKey(wrongKey),
      sealed(tokenHash(wrongKey), JSON.stringify(credential), Date.now() + 60_000, "svc-development-only-credential-cache-key-PUBLIC"),
      "PX",
      60_000,
    );
    // The victim's authentic entry, copied under the hash of a token the attacker knows.
    expect((await auth(fixture.stack.gatewayUrl, victim.apiKey)).status).toBe(200);
    const copied = madeUp();
    await redis.set(cacheKey(copied), (await redis.get(cacheKey(victim.apiKey)))!, "PX", 60_000);
    for (const token of [plain, wrongKey, copied]) {
      const response = await auth(fixture.stack.gatewayUrl, token);
      expect(response.status, token === plain ? "plain" : token === wrongKey ? "wrong key" : "copied").toBe(401);
      // The meeting service reads the same cache through its own resolver.
      expect((await createMeeting(token)).status).toBe(401);
    }
    expect(fixture.stack.logs("gateway")).toContain("credential cache entry failed authentication");
  });

  it("a forged entry over a real key's entry is ignored: the key is verified against the database, and identity replaces the forgery", async () => {
    const tenant = await createTenant(fixture.stack);
    const other = await createTenant(fixture.stack);
    // The attacker points a real key at another organization.
    await redis.set(
      cacheKey(tenant.apiKey),
      JSON.stringify({ kind: "api_key", userId: other.userId, role: "admin", orgId: other.orgId, scopes: [], clientId: "" }),
      "PX",
      60_000,
    );
    const response = await auth(fixture.stack.gatewayUrl, tenant.apiKey);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ userId: tenant.userId, orgId: tenant.orgId });
    const value = (await redis.get(cacheKey(tenant.apiKey)))!;
    expect(value).toBe(sealed(tokenHash(tenant.apiKey), contentOf(value), notAfterOf(value)));
    expect(JSON.parse(contentOf(value))).toMatchObject({ orgId: tenant.orgId });
  });

  it("a key revoked through one identity replica is refused at once through another replica and gateway", async () => {
    const tenant = await createTenant(fixture.stack);
    const second = await startSecondReplicas();
    // Warm the cache from both sides.
    expect((await auth(fixture.stack.gatewayUrl, tenant.apiKey)).status).toBe(200);
    expect((await auth(second.gatewayUrl, tenant.apiKey)).status).toBe(200);
    await fixture.stack.cli("keys", "revoke", "--key-id", tenant.keyId);
    const response = await auth(second.gatewayUrl, tenant.apiKey);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect((await auth(fixture.stack.gatewayUrl, tenant.apiKey)).status).toBe(401);
  });
});

describe("last used", () => {
  it("is recorded, but with one database write for many requests", async () => {
    const tenant = await createTenant(fixture.stack);
    // Count every UPDATE of the key's row with a trigger in this test's own database.
    await fixture.stack.query(`
      CREATE TABLE IF NOT EXISTS public.api_key_writes (key_id uuid, last_used_at timestamptz);
      CREATE OR REPLACE FUNCTION public.count_api_key_write() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO public.api_key_writes VALUES (NEW.id, NEW.last_used_at); RETURN NEW; END $$;
      CREATE OR REPLACE TRIGGER count_api_key_writes AFTER UPDATE ON identity.api_keys
        FOR EACH ROW EXECUTE FUNCTION public.count_api_key_write();
    `);
    const started = Date.now();
    for (let i = 0; i < 30; i += 1) expect((await auth(fixture.stack.gatewayUrl, tenant.apiKey)).status).toBe(200);
    await holdStill(FLUSH_MS * 5, "a negative: five flush intervals in which a second write, were there one, would have been made");
    const { rows: writes } = await fixture.stack.query("SELECT last_used_at FROM public.api_key_writes WHERE key_id = $1", [tenant.keyId]);
    expect(writes).toHaveLength(1);
    const { rows } = await fixture.stack.query("SELECT last_used_at FROM identity.api_keys WHERE id = $1", [tenant.keyId]);
    expect(rows[0]!.last_used_at.getTime()).toBeGreaterThanOrEqual(started - 1_000);
    const listed = await fixture.stack.cli<{ keys: { lastUsedAt: string | null }[] }>("keys", "list", "--user", tenant.userId);
    expect(listed.keys[0]!.lastUsedAt).toBe(rows[0]!.last_used_at.toISOString());
  });
});
