import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_EMAIL, describeDemoTenant, seedDemoTenant } from "../../scripts/demo-tenant.ts";
import { useStack } from "../support/use-stack.ts";
import { apiBase, callApi } from "../support/rest-client.ts";

const fixture = useStack();
beforeAll(() => {});

describe("the demo tenant of the embedded default", () => {
  it("is created once, on an empty identity schema, with a working API key, and never again", async () => {
    const options = { databaseUrl: fixture.stack.databaseUrl, identityAdminUrl: fixture.stack.urls.identityAdmin, adminToken: fixture.stack.env.ADMIN_TOKEN! };
    const demo = await seedDemoTenant(options);
    expect(demo).toMatchObject({ email: DEMO_EMAIL, apiKey: expect.stringMatching(/^svc_/) });

    const response = await callApi(apiBase(fixture.stack), "POST", "/auth", { key: demo!.apiKey });
    expect(await response.json()).toMatchObject({ valid: true, userId: demo!.userId, orgId: demo!.orgId });

    const announcement = describeDemoTenant(demo!, "http://localhost:8080");
    expect(announcement).toContain(demo!.password);
    expect(announcement).toContain(demo!.apiKey);
    expect(announcement).toContain("http://localhost:8080/dashboard");

    expect(await seedDemoTenant(options)).toBeUndefined();
    const { rows } = await fixture.stack.query("SELECT count(*)::int AS n FROM identity.users WHERE lower(email) = $1", [DEMO_EMAIL]);
    expect(rows[0]!.n).toBe(1);
  });
});
