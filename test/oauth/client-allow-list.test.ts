import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerCall, openSession, type DashboardSession } from "../dashboard/support/dashboard-session.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { authorizeOverHttp } from "./support/http-authorization.ts";
import { createOAuthApp, exchangeCode, verifyAtApi, type OAuthApp } from "./support/oauth-app.ts";

/**
 * Issue 33, finding 4 (second half): an organization's admin lets its members authorize any
 * organization's OAuth client (`all`, the default) or only listed ones (`listed`); the
 * organization's own clients are always allowed. Enforced by identity's authorization server:
 * the consent page refuses, and the application gets `access_denied` with a description.
 */
describe("an organization's OAuth client allow-list: consent refused for unlisted clients, managed by admins only", () => {
  let members: Tenant;
  let vendor: Tenant;
  let admin: DashboardSession;
  let vendorAdmin: DashboardSession;
  let memberSession: DashboardSession;
  let member: { email: string; password: string };
  let listedApp: OAuthApp;
  let unlistedApp: OAuthApp;
  let ownApp: OAuthApp;

  const fixture = useStack();
  beforeAll(async () => {
    [members, vendor] = await Promise.all([createTenant(fixture.stack, { name: "Careful Corp" }), createTenant(fixture.stack, { name: "App Vendor" })]);
    [admin, vendorAdmin] = await Promise.all([
      openSession(fixture.stack, members.email, members.password),
      openSession(fixture.stack, vendor.email, vendor.password),
    ]);
    member = { email: `member-${randomBytes(4).toString("hex")}@example.com`, password: "member password 1" };
    expect((await admin.call("POST", "/users", member)).status).toBe(201);
    memberSession = await openSession(fixture.stack, member.email, member.password);
    [listedApp, unlistedApp, ownApp] = await Promise.all([
      createOAuthApp(fixture.stack, vendor, { name: "Listed Scheduler", scopes: "meeting.create" }),
      createOAuthApp(fixture.stack, vendor, { name: "Unlisted Scheduler", scopes: "meeting.create" }),
      createOAuthApp(fixture.stack, members, { name: "Our Own Tool", scopes: "meeting.create" }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([listedApp, unlistedApp, ownApp].map((app) => app?.close()));
  });

  it("by default (`all`) a member may authorize another organization's client, as before", async () => {
    expect((await admin.call("GET", "/oauth-client-policy")).body).toEqual({ policy: "all", allowedClients: [] });
    const consent = await authorizeOverHttp(fixture.stack, unlistedApp, member, { scope: "meeting.create", state: "default" });
    expect(consent.status).toBe(200);
    expect(consent.html).toContain("Allow Unlisted Scheduler to access your account?");
    const callback = await consent.decide("allow");
    expect(callback.searchParams.get("code")).toBeTruthy();
  });

  it("an admin lists a client (shown with its name and organization) and switches to `listed`; members' authorizations of unlisted clients end", async () => {
    // A token the member holds for the unlisted client, from before the switch.
    const consent = await authorizeOverHttp(fixture.stack, unlistedApp, member, { scope: "meeting.create", state: "before" });
    const { tokens } = await exchangeCode(unlistedApp, (await consent.decide("allow")).href, "before");
    expect((await verifyAtApi(fixture.stack, tokens.access_token)).status).toBe(200);

    const listed = await admin.call("PUT", `/oauth-client-policy/allowed-clients/${listedApp.clientId}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      policy: "all",
      allowedClients: [{ clientId: listedApp.clientId, name: "Listed Scheduler", organizationName: "App Vendor", addedAt: expect.any(String) }],
    });
    const switched = await admin.call("PUT", "/oauth-client-policy", { policy: "listed" });
    expect(switched.status).toBe(200);
    expect(switched.body.policy).toBe("listed");
    expect((await verifyAtApi(fixture.stack, tokens.access_token)).status).toBe(401);
  });

  it("with `listed`, a member is refused an unlisted client: the consent page says why (no Allow button) and the application gets access_denied with a description", async () => {
    const consent = await authorizeOverHttp(fixture.stack, unlistedApp, member, { scope: "meeting.create", state: "refused-1" });
    expect(consent.status).toBe(403);
    expect(consent.html).toContain("Your organization does not allow Unlisted Scheduler");
    expect(consent.html).toContain("App Vendor");
    expect(consent.html).not.toContain('value="allow"');
    const callback = await consent.decide("deny");
    expect(`${callback.origin}${callback.pathname}`).toBe(unlistedApp.redirectUri);
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("error_description")).toBe("the user's organization does not allow this application");
    expect(callback.searchParams.get("state")).toBe("refused-1");
    expect(callback.searchParams.get("code")).toBeNull();
  });

  it("with `listed`, posting Allow anyway (a form kept from before) is refused the same way and issues no code", async () => {
    const consent = await authorizeOverHttp(fixture.stack, unlistedApp, member, { scope: "meeting.create", state: "refused-2" });
    const callback = await consent.decide("allow");
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("error_description")).toBe("the user's organization does not allow this application");
    expect(callback.searchParams.get("code")).toBeNull();
    const grants = await fixture.stack.query(
      "SELECT count(*)::int AS n FROM identity.oauth_artifacts WHERE model = 'Grant' AND client_id = $1 AND payload->>'accountId' = (SELECT id::text FROM identity.users WHERE email = $2)",
      [unlistedApp.clientId, member.email],
    );
    expect(grants.rows[0]!.n).toBe(0);
  });

  it("with `listed`, a member may authorize a listed client and the organization's own client, and use the tokens", async () => {
    for (const [app, state] of [
      [listedApp, "listed"],
      [ownApp, "own"],
    ] as const) {
      const consent = await authorizeOverHttp(fixture.stack, app, member, { scope: "meeting.create", state });
      expect(consent.status, state).toBe(200);
      const { tokens } = await exchangeCode(app, (await consent.decide("allow")).href, state);
      expect((await verifyAtApi(fixture.stack, tokens.access_token)).status, state).toBe(200);
    }
  });

  it("a change between the consent page and the approval is caught at the approval: unlisting the client refuses the Allow", async () => {
    const extra = await createOAuthApp(fixture.stack, vendor, { name: "Briefly Listed", scopes: "meeting.create" });
    try {
      expect((await admin.call("PUT", `/oauth-client-policy/allowed-clients/${extra.clientId}`)).status).toBe(200);
      const consent = await authorizeOverHttp(fixture.stack, extra, member, { scope: "meeting.create", state: "raced" });
      expect(consent.status).toBe(200);
      expect((await admin.call("DELETE", `/oauth-client-policy/allowed-clients/${extra.clientId}`)).status).toBe(200);
      const callback = await consent.decide("allow");
      expect(callback.searchParams.get("error")).toBe("access_denied");
      expect(callback.searchParams.get("code")).toBeNull();
    } finally {
      await extra.close();
    }
  });

  it("members, API keys and OAuth tokens cannot read or change the policy (403); bad input is 400/404 and changes nothing", async () => {
    for (const [method, path, body] of [
      ["GET", "/oauth-client-policy", undefined],
      ["PUT", "/oauth-client-policy", { policy: "all" }],
      ["PUT", `/oauth-client-policy/allowed-clients/${unlistedApp.clientId}`, undefined],
      ["DELETE", `/oauth-client-policy/allowed-clients/${listedApp.clientId}`, undefined],
    ] as const) {
      const byMember = await memberSession.call(method, path, body);
      expect(byMember.status, `member ${method} ${path}`).toBe(403);
      expect(byMember.body.error).toBe("Only an admin of the organization can do this");
      const byKey = await bearerCall(fixture.stack, members.apiKey, method, path, body);
      expect(byKey.status, `API key ${method} ${path}`).toBe(403);
    }
    const withoutCsrf = await admin.call("PUT", "/oauth-client-policy", { policy: "all" }, { csrf: false });
    expect(withoutCsrf.status).toBe(403);

    const bad = await admin.call("PUT", "/oauth-client-policy", { policy: "some" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("policy must be all or listed");
    expect((await admin.call("PUT", "/oauth-client-policy", {})).status).toBe(400);
    expect((await admin.call("PUT", "/oauth-client-policy/allowed-clients/not-a-uuid")).status).toBe(400);
    expect((await admin.call("PUT", `/oauth-client-policy/allowed-clients/${crypto.randomUUID()}`)).status).toBe(404);
    const own = await admin.call("PUT", `/oauth-client-policy/allowed-clients/${ownApp.clientId}`);
    expect(own.status).toBe(400);
    expect(own.body.error).toContain("always allowed");

    const after = await admin.call("GET", "/oauth-client-policy");
    expect(after.body.policy).toBe("listed");
    expect(after.body.allowedClients.map((client: { clientId: string }) => client.clientId)).toEqual([listedApp.clientId]);
  });

  it("another organization's admin neither sees nor changes this organization's policy", async () => {
    // The vendor's admin sees their own organization's policy: the default, empty.
    expect((await vendorAdmin.call("GET", "/oauth-client-policy")).body).toEqual({ policy: "all", allowedClients: [] });
    // Removing the client from "a" list only ever means their own list: 404, and ours is unchanged.
    expect((await vendorAdmin.call("DELETE", `/oauth-client-policy/allowed-clients/${listedApp.clientId}`)).status).toBe(404);
    // Changing their own policy does not touch ours.
    expect((await vendorAdmin.call("PUT", "/oauth-client-policy", { policy: "listed" })).body.policy).toBe("listed");
    expect((await vendorAdmin.call("PUT", "/oauth-client-policy", { policy: "all" })).body.policy).toBe("all");
    const ours = await admin.call("GET", "/oauth-client-policy");
    expect(ours.body).toEqual({ policy: "listed", allowedClients: [expect.objectContaining({ clientId: listedApp.clientId })] });
  });

  it("back to `all`: the unlisted client can be authorized again", async () => {
    expect((await admin.call("PUT", "/oauth-client-policy", { policy: "all" })).body.policy).toBe("all");
    const consent = await authorizeOverHttp(fixture.stack, unlistedApp, member, { scope: "meeting.create", state: "again" });
    expect(consent.status).toBe(200);
    expect((await consent.decide("allow")).searchParams.get("code")).toBeTruthy();
  });
});
