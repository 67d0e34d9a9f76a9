import { createHash } from "node:crypto";
import net from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { apiBase, callApi, type CallOptions } from "../support/rest-client.ts";

let tenant: Tenant;
const fixture = useStack();

beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
});

/** Takes the whole Authorization value: these tests send malformed ones too. */
const auth = (authorization?: string, options: Pick<CallOptions, "rawBody" | "contentType"> = {}) =>
  callApi(apiBase(fixture.stack), "POST", "/auth", { ...options, headers: authorization === undefined ? {} : { authorization } });

/** Sends raw bytes (fetch refuses non-ASCII header values) with `Connection: close`; returns status, head and body. */
async function rawRequest(request: Buffer): Promise<{ status: number; headers: string; body: string }> {
  const url = new URL(fixture.stack.gatewayUrl);
  const response = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(request));
    let data = "";
    socket.on("data", (chunk) => (data += chunk.toString("latin1")));
    socket.on("end", () => resolve(data));
    socket.on("error", reject);
  });
  const [head, body = ""] = response.split("\r\n\r\n");
  return { status: Number(head!.split(" ")[1]), headers: head!, body };
}

async function expectUnauthorized(response: Response, tokenSent: boolean) {
  expect(response.status).toBe(401);
  const body = await response.json();
  expect(body).toEqual({ error: expect.any(String), requestId: response.headers.get("x-request-id") });
  expect(body.error.length).toBeGreaterThan(0);
  const challenge = response.headers.get("www-authenticate");
  expect(challenge).toMatch(/^Bearer /);
  if (tokenSent) expect(challenge).toContain('error="invalid_token"');
}

describe("POST /api/v1/auth with a valid API key", () => {
  it("answers 200 {valid:true,userId,orgId} with the key's user and organization", async () => {
    const response = await auth(`Bearer ${tenant.apiKey}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({
      valid: true,
      userId: tenant.userId,
      orgId: tenant.orgId,
      kind: "api_key",
      scopes: [],
      clientId: null,
    });
  });

  it("accepts the scheme name in any case (RFC 7235) and an empty JSON body", async () => {
    const response = await auth(`bearer ${tenant.apiKey}`, { rawBody: "{}" });
    expect(response.status).toBe(200);
  });

  it("resolves the keys of two organizations to their own user and organization ids", async () => {
    const other = await createTenant(fixture.stack);
    const [mine, theirs] = await Promise.all([auth(`Bearer ${tenant.apiKey}`), auth(`Bearer ${other.apiKey}`)]);
    expect(await mine.json()).toMatchObject({ userId: tenant.userId, orgId: tenant.orgId });
    expect(await theirs.json()).toMatchObject({ userId: other.userId, orgId: other.orgId });
    expect(other.orgId).not.toBe(tenant.orgId);
  });

  it("carries security headers and an X-Request-Id", async () => {
    const response = await auth(`Bearer ${tenant.apiKey}`);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get("x-powered-by")).toBeNull();
    // No entity tag computed for an answer nobody revalidates (gateway/src/app.ts).
    expect(response.headers.get("etag")).toBeNull();
  });
});

describe("the OpenAPI document describes POST /auth as it answers", () => {
  it("lists the 200 body's fields as required and the 401 and 429 statuses", async () => {
    const document = await (await callApi(apiBase(fixture.stack), "GET", "/openapi.json")).json();
    const operation = document.paths["/auth"].post;
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "401", "429"]));
    const schema = document.components.schemas.CredentialVerification;
    const body = await (await auth(`Bearer ${tenant.apiKey}`)).json();
    expect([...schema.required].sort()).toEqual(Object.keys(body).sort());
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(body).sort());
  });
});

describe("POST /api/v1/auth refuses with 401 {error} and WWW-Authenticate", () => {
  it("a missing Authorization header", async () => {
    await expectUnauthorized(await auth(), false);
  });

  it("a non-Bearer scheme", async () => {
    await expectUnauthorized(await auth(`Basic ${Buffer.from(`x:${tenant.apiKey}`).toString("base64")}`), false);
  });

  it("an empty token", async () => {
    await expectUnauthorized(await auth("Bearer "), false);
    await expectUnauthorized(await auth("Bearer"), false);
  });

  it("an unknown key of the right shape", async () => {
    await expectUnauthorized(await auth(`Bearer svc_${Buffer.alloc(32, 1).toString("base64url")}`), true);
  });

  it("a token that is not one of ours at all", async () => {
    await expectUnauthorized(await auth("Bearer not-a-token"), true);
  });

  it("an 8 KB Authorization header", async () => {
    await expectUnauthorized(await auth(`Bearer svc_${"A".repeat(8 * 1024)}`), true);
  });

  it("non-ASCII bytes in the token", async () => {
    const token = Buffer.concat([Buffer.from(tenant.apiKey.slice(0, 20)), Buffer.from("é€", "utf8")]);
    const request = Buffer.concat([
      Buffer.from("POST /api/v1/auth HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\nAuthorization: Bearer "),
      token,
      Buffer.from("\r\n\r\n"),
    ]);
    const response = await rawRequest(request);
    expect(response.status).toBe(401);
    expect(response.headers).toMatch(/\r\nWWW-Authenticate: Bearer /i);
    expect(JSON.parse(response.body)).toMatchObject({ error: expect.any(String) });
  });

  it("a revoked key on the very next request, although its verification is cached", async () => {
    const victim = await createTenant(fixture.stack);
    expect((await auth(`Bearer ${victim.apiKey}`)).status).toBe(200);
    const cacheKey = `${fixture.stack.env.REDIS_KEY_PREFIX}cred:${createHash("sha256").update(victim.apiKey).digest("hex")}`;
    const { Redis } = await import("ioredis");
    const redis = new Redis(fixture.stack.env.REDIS_URL!);
    try {
      // Entries are `<HMAC>.<notAfter>.<content>` (see credential-cache.ts's entrySeal).
      const payload = (value: string | null) => value!.split(".").slice(2).join(".");
      expect(JSON.parse(payload(await redis.get(cacheKey)))).toMatchObject({ userId: victim.userId, orgId: victim.orgId });
      expect(await redis.pttl(cacheKey)).toBeLessThanOrEqual(60_000);

      expect(await fixture.stack.cli("keys", "revoke", "--key-id", victim.keyId)).toEqual({ keyId: victim.keyId, revoked: true });
      await expectUnauthorized(await auth(`Bearer ${victim.apiKey}`), true);
      expect(payload(await redis.get(cacheKey))).toBe("revoked");
    } finally {
      redis.disconnect();
    }
    // The other keys are untouched.
    expect((await auth(`Bearer ${tenant.apiKey}`)).status).toBe(200);
  });
});

describe("the key is shown once and never stored", () => {
  it("the database holds only its SHA-256 and a short display prefix, nowhere the key", async () => {
    const { rows: tables } = await fixture.stack.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'identity' AND table_type = 'BASE TABLE'",
    );
    expect(tables.length).toBeGreaterThan(0);
    const secretPart = tenant.apiKey.slice("svc_".length + 8); // everything beyond the display prefix
    for (const { table_name } of tables) {
      const { rows } = await fixture.stack.query(`SELECT to_jsonb(t)::text AS row FROM identity."${table_name}" t`);
      for (const { row } of rows) expect(row).not.toContain(secretPart);
    }
    const { rows } = await fixture.stack.query("SELECT key_hash, display_prefix FROM identity.api_keys WHERE id = $1", [tenant.keyId]);
    expect(rows[0]).toEqual({ key_hash: createHash("sha256").update(tenant.apiKey).digest("hex"), display_prefix: tenant.apiKey.slice(0, 12) });
  });

  it("keys list shows the display prefix but never the key", async () => {
    const listed = await fixture.stack.cli<{ keys: Record<string, unknown>[] }>("keys", "list", "--user", tenant.userId);
    expect(listed.keys).toEqual([expect.objectContaining({ keyId: tenant.keyId, prefix: tenant.apiKey.slice(0, 12) })]);
    expect(JSON.stringify(listed)).not.toContain(tenant.apiKey.slice(12));
    const human = await fixture.stack.cliRaw("keys", "list", "--user", tenant.userId);
    expect(human.stdout).not.toContain(tenant.apiKey.slice(12));
  });
});

describe("request bodies of the REST API", () => {
  it("a body that is not JSON is refused with 400 naming the content type", async () => {
    const response = await auth(`Bearer ${tenant.apiKey}`, { rawBody: "hello", contentType: "text/plain" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "Content-Type must be application/json" });
  });

  it("malformed JSON is refused with 400", async () => {
    const response = await auth(`Bearer ${tenant.apiKey}`, { rawBody: "{nope" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "Malformed JSON in request body" });
  });

  it("a body over 100 KB is refused with 413", async () => {
    const body = JSON.stringify({ padding: "x".repeat(101 * 1024) });
    const response = await auth(`Bearer ${tenant.apiKey}`, { rawBody: body });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: expect.stringContaining("100 KB") });
  });

  it("an unauthenticated request is refused before its body is read", async () => {
    const response = await auth(undefined, { rawBody: "{nope" });
    expect(response.status).toBe(401);
  });
});
