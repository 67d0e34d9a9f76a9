import { createHash, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { bearerCall, openSession, sessionFrom, signInApi, type DashboardSession } from "./support/dashboard-session.ts";
import { guessWrongPasswords } from "../support/password-guesses.ts";
import { authorizeRedirect } from "../oauth/support/oauth-app.ts";

describe("dashboard management API: sessions, CSRF, roles, credential rules and organization isolation", () => {
  let orgA: Tenant;
  let orgB: Tenant;
  let adminA: DashboardSession;
  let adminB: DashboardSession;
  let memberA: DashboardSession;
  let member: { email: string; password: string; userId: string };

  const fixture = useStack({ env: { SIGNUP_ENABLED: "true" } });
  beforeAll(async () => {
    orgA = await createTenant(fixture.stack, { name: "Org A" });
    orgB = await createTenant(fixture.stack, { name: "Org B" });
    adminA = await openSession(fixture.stack, orgA.email, orgA.password);
    adminB = await openSession(fixture.stack, orgB.email, orgB.password);
    member = { email: `member-${randomBytes(4).toString("hex")}@example.com`, password: "member password 1", userId: "" };
    const created = await adminA.call("POST", "/users", { email: member.email, password: member.password });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: member.email, role: "member", deactivated: false });
    member.userId = created.body.userId;
    memberA = await openSession(fixture.stack, member.email, member.password);
  });

  it("signs in with an HttpOnly SameSite=Lax session cookie and a script-readable SameSite=Strict CSRF cookie; users made by the CLI are admins", async () => {
    const session = adminA.setCookies.find((cookie) => cookie.startsWith("svc_session="))!;
    const csrf = adminA.setCookies.find((cookie) => cookie.startsWith("svc_csrf="))!;
    expect(session).toMatch(/^svc_session=svc_sess_[A-Za-z0-9_-]{43};/);
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Lax/);
    expect(session).toMatch(/; Path=\//);
    expect(session).toMatch(/; Max-Age=\d+/);
    // PUBLIC_URL of the test stack is http: no Secure flag (and no __Host- prefix), see the unit test for https.
    expect(session).not.toMatch(/; Secure/);
    expect(csrf).not.toMatch(/HttpOnly/);
    expect(csrf).toMatch(/; SameSite=Strict/);
    expect(adminA.body.user).toEqual({ userId: orgA.userId, orgId: orgA.orgId, organizationName: "Org A", email: orgA.email, role: "admin" });
    const me = await adminA.call("GET", "/session");
    expect(me.status).toBe(200);
    expect(me.body.user.role).toBe("admin");
  });

  it("refuses a session request without the CSRF token (403) or with another session's (403), and changes nothing", async () => {
    const before = await adminA.call("GET", "/api-keys");
    for (const csrf of [false, adminB.csrfToken, "x".repeat(43)] as const) {
      const refused = await adminA.call("POST", "/api-keys", { name: "csrf-less" }, { csrf });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatch(/CSRF/);
    }
    const after = await adminA.call("GET", "/api-keys");
    expect(after.body.apiKeys).toEqual(before.body.apiKeys);
  });

  it("a key created with a session works at POST /auth and is refused on the next request after revocation", async () => {
    const created = await adminA.call("POST", "/api-keys", { name: "ci deploy" });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(created.body.prefix).toBe(created.body.key.slice(0, 12));
    const ok = await bearerCall(fixture.stack, created.body.key, "POST", "/auth");
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ valid: true, userId: orgA.userId, orgId: orgA.orgId, kind: "api_key" });
    const listed = await adminA.call("GET", "/api-keys");
    expect(listed.body.apiKeys.map((key: any) => key.name)).toContain("ci deploy");
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    const revoked = await adminA.call("POST", `/api-keys/${created.body.keyId}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    expect((await bearerCall(fixture.stack, created.body.key, "POST", "/auth")).status).toBe(401);
  });

  it("API keys and OAuth-style bearer tokens cannot mint credentials or users: only a session may (403)", async () => {
    for (const [method, path, body] of [
      ["GET", "/api-keys", undefined],
      ["POST", "/api-keys", { name: "minted by a leaked key" }],
      ["POST", "/oauth-clients", { name: "x", redirectUris: ["https://x.example/cb"], scopes: ["meeting.create"] }],
      ["POST", "/users", { email: "sneaky@example.com", password: "password123" }],
      ["GET", "/authorized-apps", undefined],
    ] as const) {
      const refused = await bearerCall(fixture.stack, orgA.apiKey, method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error).toMatch(/only a dashboard session/);
    }
    expect((await bearerCall(fixture.stack, "svc_" + "A".repeat(43), "GET", "/api-keys")).status).toBe(401);
    const keys = await fixture.stack.query("SELECT count(*)::int AS n FROM identity.api_keys WHERE name = 'minted by a leaked key'");
    expect(keys.rows[0]!.n).toBe(0);
  });

  it("a member manages their own keys but gets 403 for OAuth clients, users and webhook changes; webhooks stay readable", async () => {
    const key = await memberA.call("POST", "/api-keys", { name: "member key" });
    expect(key.status).toBe(201);
    for (const [method, path, body] of [
      ["GET", "/oauth-clients", undefined],
      ["POST", "/oauth-clients", { name: "x", redirectUris: ["https://x.example/cb"], scopes: ["meeting.create"] }],
      ["GET", "/users", undefined],
      ["POST", "/users", { email: "other@example.com", password: "password123" }],
      ["PATCH", `/users/${orgA.userId}`, { role: "member" }],
      ["POST", "/webhook", { url: "https://hooks.example.com/x", events: ["meeting.ended"] }],
    ] as const) {
      const refused = await memberA.call(method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error).toBe("Only an admin of the organization can do this");
    }
    // The member's own API key has no more rights than the member.
    expect((await bearerCall(fixture.stack, key.body.key, "POST", "/webhook", { url: "https://hooks.example.com/x", events: ["meeting.ended"] })).status).toBe(
      403,
    );
    expect((await memberA.call("GET", "/webhook")).status).toBe(200);
  });

  it("an admin can create, edit, rotate and delete OAuth clients with the API's validation messages", async () => {
    const bad = await adminA.call("POST", "/oauth-clients", { name: "", redirectUris: ["not a url"], scopes: ["openid"] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("name is required");
    expect(bad.body.error).toContain("must be an absolute http(s) URL");
    expect(bad.body.error).toContain("scopes: unknown openid");
    const created = await adminA.call("POST", "/oauth-clients", {
      name: "Cal",
      redirectUris: ["https://cal.example/cb"],
      scopes: ["meeting.create", "webhook.read"],
    });
    expect(created.status).toBe(201);
    expect(created.body.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const listed = await adminA.call("GET", "/oauth-clients");
    expect(listed.body.clients).toEqual([expect.objectContaining({ clientId: created.body.clientId, name: "Cal" })]);
    expect(listed.body.scopeCatalog).toContainEqual({ scope: "meeting.create", description: "Create meetings for you" });
    const edited = await adminA.call("PUT", `/oauth-clients/${created.body.clientId}`, {
      name: "Cal.com",
      redirectUris: ["https://cal.example/cb", "https://cal.example/cb2"],
      scopes: ["meeting.create"],
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: "Cal.com", redirectUris: ["https://cal.example/cb", "https://cal.example/cb2"], scopes: ["meeting.create"] });
    const rotated = await adminA.call("POST", `/oauth-clients/${created.body.clientId}/secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.clientSecret).not.toBe(created.body.clientSecret);
    expect((await adminA.call("DELETE", `/oauth-clients/${created.body.clientId}`)).body).toEqual({ clientId: created.body.clientId, deleted: true });
    expect((await adminA.call("DELETE", `/oauth-clients/${created.body.clientId}`)).status).toBe(404);
  });

  it("an admin can make a client require PKCE and turn it off again; /oauth/authorize follows the setting at once", async () => {
    const authorize = async (clientId: string) => (await authorizeRedirect(fixture.stack, clientId)).location;
    const fields = { name: "Strict", redirectUris: ["https://pkce.example/cb"], scopes: ["meeting.read"] };
    const created = await adminA.call("POST", "/oauth-clients", { ...fields, requirePkce: true });
    expect(created.status).toBe(201);
    expect(created.body.requirePkce).toBe(true);
    const listed = await adminA.call("GET", "/oauth-clients");
    expect(listed.body.clients).toContainEqual(expect.objectContaining({ clientId: created.body.clientId, requirePkce: true }));
    // Without a code_challenge: back at the application with invalid_request.
    const refused = await authorize(created.body.clientId);
    expect(refused.origin + refused.pathname).toBe("https://pkce.example/cb");
    expect(refused.searchParams.get("error")).toBe("invalid_request");
    expect(refused.searchParams.get("error_description")).toMatch(/PKCE/);

    // A PUT without requirePkce turns it off (PUT replaces the fields): the same request goes on to sign-in.
    const edited = await adminA.call("PUT", `/oauth-clients/${created.body.clientId}`, fields);
    expect(edited.body.requirePkce).toBe(false);
    const accepted = await authorize(created.body.clientId);
    expect(accepted.searchParams.get("error")).toBeNull();
    expect(accepted.origin).toBe(new URL(fixture.stack.gatewayUrl).origin);

    const again = await adminA.call("PUT", `/oauth-clients/${created.body.clientId}`, { ...fields, requirePkce: true });
    expect(again.body.requirePkce).toBe(true);
    expect((await authorize(created.body.clientId)).searchParams.get("error")).toBe("invalid_request");
    expect((await adminA.call("POST", "/oauth-clients", { ...fields, requirePkce: "yes" })).status).toBe(400);
    await adminA.call("DELETE", `/oauth-clients/${created.body.clientId}`);
  });

  it("organization isolation: every route answers another organization's ids like unknown ones and changes nothing", async () => {
    const client = await adminA.call("POST", "/oauth-clients", { name: "A's app", redirectUris: ["https://a.example/cb"], scopes: ["meeting.create"] });
    const webhook = await adminA.call("POST", "/webhook", { url: "https://hooks.example.com/a", events: ["meeting.ended"] });
    expect(webhook.status).toBe(201);
    const keyOfA = await adminA.call("POST", "/api-keys", { name: "A's key" });
    const id = client.body.clientId;
    const attempts = [
      ["PUT", `/oauth-clients/${id}`, { name: "stolen", redirectUris: ["https://evil.example/cb"], scopes: ["meeting.create"] }],
      ["POST", `/oauth-clients/${id}/secret`, undefined],
      ["DELETE", `/oauth-clients/${id}`, undefined],
      ["PATCH", `/users/${orgA.userId}`, { deactivated: true }],
      ["POST", `/api-keys/${keyOfA.body.keyId}/revoke`, undefined],
      ["POST", `/webhook/${webhook.body.webhookId}/enable`, undefined],
      ["POST", `/webhook/${webhook.body.webhookId}/test`, undefined],
      ["GET", `/webhook/${webhook.body.webhookId}/deliveries`, undefined],
      ["DELETE", "/webhook", { webhookId: webhook.body.webhookId }],
    ] as const;
    for (const [method, path, body] of attempts) {
      expect((await adminB.call(method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    for (const path of ["/oauth-clients", "/users", "/api-keys", "/webhook", "/authorized-apps"]) {
      const seen = JSON.stringify((await adminB.call("GET", path)).body);
      for (const foreign of [id, orgA.userId, keyOfA.body.keyId, webhook.body.webhookId]) expect(seen, path).not.toContain(foreign);
    }
    expect((await adminA.call("GET", "/oauth-clients")).body.clients).toContainEqual(expect.objectContaining({ clientId: id, name: "A's app" }));
    expect((await bearerCall(fixture.stack, keyOfA.body.key, "POST", "/auth")).status).toBe(200);
    expect((await adminA.call("GET", "/webhook")).body.webhooks.map((w: any) => w.webhookId)).toContain(webhook.body.webhookId);
    expect((await adminB.call("DELETE", "/authorized-apps/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).status).toBe(404);
  });

  it("role changes take effect at once; deactivation ends sessions and refuses keys; admins cannot demote themselves", async () => {
    expect((await adminA.call("PATCH", `/users/${orgA.userId}`, { role: "member" })).status).toBe(409);
    // Nothing to change is a mistake, not a silent success (found by schemathesis: an empty PATCH answered 200).
    const empty = await adminA.call("PATCH", `/users/${member.userId}`, {});
    expect([empty.status, empty.body.error]).toEqual([400, "nothing to update: give role or deactivated"]);
    const promoted = await adminA.call("PATCH", `/users/${member.userId}`, { role: "admin" });
    expect(promoted.body.role).toBe("admin");
    expect((await memberA.call("GET", "/users")).status).toBe(200);
    await adminA.call("PATCH", `/users/${member.userId}`, { role: "member" });
    expect((await memberA.call("GET", "/users")).status).toBe(403);
    const key = await memberA.call("POST", "/api-keys", { name: "soon dead" });
    expect((await bearerCall(fixture.stack, key.body.key, "POST", "/auth")).status).toBe(200);
    const deactivated = await adminA.call("PATCH", `/users/${member.userId}`, { deactivated: true });
    expect(deactivated.body).toMatchObject({ deactivated: true, deactivatedAt: expect.any(String) });
    expect((await memberA.call("GET", "/session")).status).toBe(401);
    expect((await bearerCall(fixture.stack, key.body.key, "POST", "/auth")).status).toBe(401);
    expect((await signInApi(fixture.stack, member.email, member.password)).status).toBe(401);
    await adminA.call("PATCH", `/users/${member.userId}`, { deactivated: false });
    memberA = await openSession(fixture.stack, member.email, member.password);
  });

  it("sign-out ends the session server-side: the old cookie is refused afterwards", async () => {
    const session = await openSession(fixture.stack, orgB.email, orgB.password);
    const out = await session.call("DELETE", "/session");
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().join("\n")).toMatch(/svc_session=;.*Expires=Thu, 01 Jan 1970/);
    const refused = await session.call("GET", "/api-keys");
    expect(refused.status).toBe(401);
  });

  it("a session idle for longer than the idle timeout, or past its absolute end, is refused", async () => {
    const idle = await openSession(fixture.stack, orgB.email, orgB.password);
    const ended = await openSession(fixture.stack, orgB.email, orgB.password);
    const tokenOf = (session: DashboardSession) => session.cookieHeader.match(/svc_session=([^;]+)/)![1]!;
    const hash = (token: string) => createHash("sha256").update(token).digest("hex");
    expect((await idle.call("GET", "/session")).status).toBe(200);
    await fixture.stack.query("UPDATE identity.sessions SET last_seen_at = now() - interval '31 minutes' WHERE token_hash = $1", [hash(tokenOf(idle))]);
    await fixture.stack.query("UPDATE identity.sessions SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [hash(tokenOf(ended))]);
    expect((await idle.call("GET", "/session")).status).toBe(401);
    expect((await ended.call("GET", "/session")).status).toBe(401);
    // Activity moves the idle clock: a session used 29 minutes ago is still alive.
    const active = await openSession(fixture.stack, orgB.email, orgB.password);
    await fixture.stack.query("UPDATE identity.sessions SET last_seen_at = now() - interval '29 minutes' WHERE token_hash = $1", [hash(tokenOf(active))]);
    expect((await active.call("GET", "/session")).status).toBe(200);
  });

  it("a request refused for its CSRF token does not keep the session alive (the idle clock moves only after the check)", async () => {
    const session = await openSession(fixture.stack, orgB.email, orgB.password);
    const token = session.cookieHeader.match(/svc_session=([^;]+)/)![1]!;
    const tokenHash = createHash("sha256").update(token).digest("hex");
    await fixture.stack.query("UPDATE identity.sessions SET last_seen_at = now() - interval '29 minutes' WHERE token_hash = $1", [tokenHash]);
    const lastSeen = async () =>
      (
        await fixture.stack.query<{ idle: number }>(
          "SELECT extract(epoch FROM now() - last_seen_at)::int AS idle FROM identity.sessions WHERE token_hash = $1",
          [tokenHash],
        )
      ).rows[0]!.idle;
    // A cross-site request carries the cookie but not the CSRF token: refused, and not an activity.
    for (const csrf of [false, "x".repeat(43)] as const) expect((await session.call("GET", "/session", undefined, { csrf })).status).toBe(403);
    expect(await lastSeen()).toBeGreaterThanOrEqual(29 * 60 - 5);
    // The owner's own request is.
    expect((await session.call("GET", "/session")).status).toBe(200);
    expect(await lastSeen()).toBeLessThan(60);
  });

  it("20 wrong passwords throttle that account for everyone, the right password included, with the same answer for an unknown account", async () => {
    const {
      victim,
      victimAnswers: answers,
      unknownAnswers,
    } = await guessWrongPasswords(fixture.stack, 20, (email, password) => signInApi(fixture.stack, email, password));
    expect(answers.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(answers.slice(10).every((status) => status === 429)).toBe(true);
    expect(unknownAnswers).toEqual(answers);
    const right = await signInApi(fixture.stack, victim.email, victim.password);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(right.body.error).toMatch(/^Too many failed sign-in attempts/);
    // Another account is unaffected.
    expect((await signInApi(fixture.stack, orgB.email, orgB.password)).status).toBe(200);
    expect(fixture.stack.logs("identity")).toContain("sign-in throttled");
  });

  it("sign-up creates an organization with its first admin and signs in; a taken address is 409 and leaves no organization", async () => {
    const email = `founder-${randomBytes(4).toString("hex")}@example.com`;
    const response = await fetch(`${fixture.stack.gatewayUrl}/api/v1/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ organizationName: "New Co", email, password: "founder password" }),
    });
    expect(response.status).toBe(201);
    const founder = sessionFrom(fixture.stack, response.headers, (await response.json()) as Record<string, unknown>);
    expect(founder.body.user).toMatchObject({ email, role: "admin", organizationName: "New Co" });
    expect((await founder.call("GET", "/users")).body.users).toHaveLength(1);
    const orgs = async () => (await fixture.stack.query("SELECT count(*)::int AS n FROM identity.organizations")).rows[0]!.n;
    const before = await orgs();
    const taken = await fetch(`${fixture.stack.gatewayUrl}/api/v1/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ organizationName: "Copycat", email, password: "founder password" }),
    });
    expect(taken.status).toBe(409);
    expect(await orgs()).toBe(before);
    const invalid = await fetch(`${fixture.stack.gatewayUrl}/api/v1/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ organizationName: "", email: "nope", password: "short" }),
    });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { error: string }).error).toBe(
      "organizationName is required; email must be an e-mail address; password must be at least 8 characters",
    );
  });

  it("the database holds no plaintext session token, CSRF token, API key or client secret", async () => {
    const secrets = [adminA.cookieHeader.match(/svc_session=([^;]+)/)![1]!, adminA.csrfToken, orgA.apiKey];
    const created = await adminA.call("POST", "/oauth-clients", { name: "Dump check", redirectUris: ["https://d.example/cb"], scopes: ["meeting.create"] });
    secrets.push(created.body.clientSecret);
    const key = await adminA.call("POST", "/api-keys", { name: "dump check" });
    secrets.push(key.body.key);
    const { rows } = await fixture.stack.query<{ dump: string }>(
      `SELECT string_agg(t::text, E'\\n') AS dump FROM (
         SELECT row_to_json(s)::text AS t FROM identity.sessions s UNION ALL
         SELECT row_to_json(k)::text FROM identity.api_keys k UNION ALL
         SELECT row_to_json(c)::text FROM identity.oauth_clients c UNION ALL
         SELECT row_to_json(u)::text FROM identity.users u UNION ALL
         SELECT row_to_json(a)::text FROM identity.oauth_artifacts a) x`,
    );
    const dump = rows[0]!.dump;
    expect(dump).toContain(key.body.keyId);
    for (const secret of secrets) expect(dump).not.toContain(secret);
  });
});
