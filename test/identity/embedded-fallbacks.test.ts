import { beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant } from "../support/tenants.ts";
import { apiBase, callApi } from "../support/rest-client.ts";

// The embedded default runs without Redis: identity caches verifications in-process and the
// gateway counts rate limits in-process. Both must keep the same rules.
const fixture = useStack({ redis: false, env: { RATE_LIMIT_PER_SECOND: "5" } });

beforeAll(() => {});

const auth = (key: string) => callApi(apiBase(fixture.stack), "POST", "/auth", { key });

describe("without Redis", () => {
  it("verifies keys and refuses a revoked one on the next request although its verification is cached in-process", async () => {
    const tenant = await createTenant(fixture.stack);
    expect(fixture.stack.env.REDIS_URL).toBeUndefined();
    const response = await auth(tenant.apiKey);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ valid: true, userId: tenant.userId, orgId: tenant.orgId });
    await fixture.stack.cli("keys", "revoke", "--key-id", tenant.keyId);
    expect((await auth(tenant.apiKey)).status).toBe(401);
  });

  it("still limits the request rate per credential", async () => {
    const tenant = await createTenant(fixture.stack);
    const burst = await Promise.all(Array.from({ length: 15 }, () => auth(tenant.apiKey)));
    expect(burst.filter((response) => response.status === 200).length).toBeLessThanOrEqual(5);
    expect(burst.some((response) => response.status === 429 && response.headers.get("retry-after"))).toBe(true);
  });
});
