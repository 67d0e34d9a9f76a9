import { beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { apiBase, callApi } from "../support/rest-client.ts";

// Callers (the gateway, meeting, webhook) read identity's shared verification cache before they
// call VerifyCredential, so a warm credential costs one Redis GET instead of an RPC. These tests
// show it by stopping identity: warm credentials still resolve, revocation markers still refuse,
// and a cold credential cannot be resolved at all.
let warm: Tenant;
let revoked: Tenant;
let cold: Tenant;

const auth = (key: string) => callApi(apiBase(fixture.stack), "POST", "/auth", { key });
const createMeeting = (key: string) => callApi(apiBase(fixture.stack), "POST", "/meeting", { key, body: { title: "Cache" } });

const fixture = useStack();

beforeAll(async () => {
  [warm, revoked, cold] = [await createTenant(fixture.stack), await createTenant(fixture.stack), await createTenant(fixture.stack)];
  expect((await auth(warm.apiKey)).status).toBe(200);
  expect((await auth(revoked.apiKey)).status).toBe(200);
  await fixture.stack.cli("keys", "revoke", "--key-id", revoked.keyId);
  await fixture.stack.kill("identity");
});

describe("callers answer from identity's shared verification cache", () => {
  it("POST /auth resolves a warm API key while identity is down", async () => {
    const response = await auth(warm.apiKey);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ valid: true, userId: warm.userId, orgId: warm.orgId, kind: "api_key" });
  });

  it("the meeting service authorizes a warm API key while identity is down", async () => {
    expect((await createMeeting(warm.apiKey)).status).toBe(200);
  });

  it("a revoked key is refused from its revocation marker, identity or not", async () => {
    const response = await auth(revoked.apiKey);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    expect((await createMeeting(revoked.apiKey)).status).toBe(401);
  });

  it("a credential that is not in the cache needs identity: 503, not a guess", async () => {
    const response = await auth(cold.apiKey);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: "Service temporarily unavailable" });
  });
});
