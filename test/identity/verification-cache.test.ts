import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import path from "node:path";
import { HealthCheckRequestSchema, HealthCheckResponseSchema } from "@svc/proto/health/v1/health_pb";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcJsClient } from "../support/grpc-js.ts";
import { freePort } from "../support/infra.ts";
import { startStack, type Stack } from "../support/stack.ts";
import { createTenant } from "../support/tenants.ts";

const root = path.resolve(import.meta.dirname, "../..");
const FLUSH_MS = 200;

let stack: Stack;
let redis: Redis;
const extras: ChildProcess[] = [];
beforeAll(async () => {
  stack = await startStack({ env: { LAST_USED_FLUSH_INTERVAL_MS: String(FLUSH_MS) } });
  redis = new Redis(stack.env.REDIS_URL!);
});
afterAll(async () => {
  for (const child of extras) if (child.exitCode === null) child.kill("SIGTERM");
  await Promise.all(extras.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once("exit", resolve)) : undefined)));
  redis?.disconnect();
  await stack?.stop();
});

const auth = (gatewayUrl: string, key: string) =>
  fetch(`${gatewayUrl}/api/v1/auth`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
const cacheKey = (key: string) => `${stack.env.REDIS_KEY_PREFIX}cred:${createHash("sha256").update(key).digest("hex")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A second replica of identity and of the gateway, sharing the stack's database and Redis. */
async function startSecondReplicas(): Promise<{ gatewayUrl: string }> {
  const identityPort = await freePort();
  const gatewayPort = await freePort();
  const identityUrl = `http://127.0.0.1:${identityPort}`;
  const launch = (cwd: string, env: Record<string, string>) => {
    const child = spawn(process.execPath, ["--conditions=source", "src/main.ts"], { cwd, env: { ...stack.env, ...env }, stdio: "ignore" });
    extras.push(child);
  };
  launch(path.join(root, "services/identity"), { GRPC_PORT: String(identityPort) });
  launch(path.join(root, "gateway"), { PORT: String(gatewayPort), IDENTITY_URL: identityUrl });
  const health = grpcJsClient(identityUrl);
  for (let ready = false; !ready; await sleep(100)) {
    ready = await health.unary("/grpc.health.v1.Health/Check", HealthCheckRequestSchema, HealthCheckResponseSchema, {}).then(
      () => true,
      () => false,
    );
  }
  health.close();
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  while (!(await fetch(`${gatewayUrl}/healthz`).then((response) => response.ok, () => false))) await sleep(100);
  return { gatewayUrl };
}

describe("the verification cache in Redis", () => {
  it("holds a verified key under its SHA-256 for at most 60 s, and answers from there", async () => {
    const tenant = await createTenant(stack);
    expect((await auth(stack.gatewayUrl, tenant.apiKey)).status).toBe(200);
    const ttl = await redis.pttl(cacheKey(tenant.apiKey));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await redis.get(cacheKey(tenant.apiKey))).not.toContain(tenant.apiKey);
    // Proof that the cached answer is used: rewrite it, and the next verification returns it.
    const cached = JSON.parse((await redis.get(cacheKey(tenant.apiKey)))!);
    const markedOrgId = randomUUID(); // an organization id only the cache holds
    await redis.set(cacheKey(tenant.apiKey), JSON.stringify({ ...cached, orgId: markedOrgId }), "PX", 60_000);
    expect(await (await auth(stack.gatewayUrl, tenant.apiKey)).json()).toMatchObject({ orgId: markedOrgId });
    await redis.del(cacheKey(tenant.apiKey));
    expect(await (await auth(stack.gatewayUrl, tenant.apiKey)).json()).toMatchObject({ orgId: tenant.orgId });
  });

  it("does not cache the refusal of an unknown token", async () => {
    const tenant = await createTenant(stack);
    // A well-formed key that differs from the real one in its last character (never equal to it).
    const unknown = `${tenant.apiKey.slice(0, -1)}${tenant.apiKey.endsWith("A") ? "B" : "A"}`;
    expect((await auth(stack.gatewayUrl, unknown)).status).toBe(401);
    expect(await redis.exists(cacheKey(unknown))).toBe(0);
  });

  it("a key revoked through one identity replica is refused at once through another replica and gateway", async () => {
    const tenant = await createTenant(stack);
    const second = await startSecondReplicas();
    // Warm the cache from both sides.
    expect((await auth(stack.gatewayUrl, tenant.apiKey)).status).toBe(200);
    expect((await auth(second.gatewayUrl, tenant.apiKey)).status).toBe(200);
    await stack.cli("keys", "revoke", "--key-id", tenant.keyId);
    const response = await auth(second.gatewayUrl, tenant.apiKey);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect((await auth(stack.gatewayUrl, tenant.apiKey)).status).toBe(401);
  });
});

describe("last used", () => {
  it("is recorded, but with one database write for many requests", async () => {
    const tenant = await createTenant(stack);
    // Count every UPDATE of the key's row with a trigger in this test's own database.
    await stack.query(`
      CREATE TABLE IF NOT EXISTS public.api_key_writes (key_id uuid, last_used_at timestamptz);
      CREATE OR REPLACE FUNCTION public.count_api_key_write() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO public.api_key_writes VALUES (NEW.id, NEW.last_used_at); RETURN NEW; END $$;
      CREATE OR REPLACE TRIGGER count_api_key_writes AFTER UPDATE ON identity.api_keys
        FOR EACH ROW EXECUTE FUNCTION public.count_api_key_write();
    `);
    const started = Date.now();
    for (let i = 0; i < 30; i += 1) expect((await auth(stack.gatewayUrl, tenant.apiKey)).status).toBe(200);
    await sleep(FLUSH_MS * 5);
    const { rows: writes } = await stack.query("SELECT last_used_at FROM public.api_key_writes WHERE key_id = $1", [tenant.keyId]);
    expect(writes).toHaveLength(1);
    const { rows } = await stack.query("SELECT last_used_at FROM identity.api_keys WHERE id = $1", [tenant.keyId]);
    expect(rows[0]!.last_used_at.getTime()).toBeGreaterThanOrEqual(started - 1_000);
    const listed = await stack.cli<{ keys: { lastUsedAt: string | null }[] }>("keys", "list", "--user", tenant.userId);
    expect(listed.keys[0]!.lastUsedAt).toBe(rows[0]!.last_used_at.toISOString());
  });
});
