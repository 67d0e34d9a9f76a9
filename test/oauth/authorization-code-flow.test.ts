import os from "node:os";
import path from "node:path";
import * as oauth from "oauth4webapi";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { launchChromium } from "../support/chromium.ts";
import { authorizeInBrowser, signIn, unlabelledControls } from "./support/browser.ts";
import { createOAuthApp, exchangeCode, insecure, tokenRequest, verifyAtApi, type OAuthApp } from "./support/oauth-app.ts";

describe("OAuth 2.0 authorization-code flow through the gateway, in Chromium, with oauth4webapi", () => {
  let developer: Tenant;
  let user: Tenant;
  let app: OAuthApp;
  let browser: Browser;
  /** One browser profile for the whole file: its session cookie carries over between tests. */
  let session: BrowserContext;

  const fixture = useStack();
  beforeAll(async () => {
    developer = await createTenant(fixture.stack, { name: "App Developer Inc" });
    user = await createTenant(fixture.stack, { name: "Customer Org" });
    app = await createOAuthApp(fixture.stack, developer, { name: "Cal Scheduler", scopes: "meeting.create webhook.read" });
    browser = await launchChromium();
    session = await browser.newContext();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("serves RFC 8414 metadata that oauth4webapi accepts, listing only our grants and scopes", () => {
    expect(app.as.issuer).toBe(new URL(fixture.stack.gatewayUrl).origin);
    expect(app.as.authorization_endpoint).toBe(`${new URL(fixture.stack.gatewayUrl).origin}/oauth/authorize`);
    expect(app.as.token_endpoint).toBe(`${new URL(fixture.stack.gatewayUrl).origin}/api/oauth/token`);
    expect(app.as.revocation_endpoint).toBe(`${new URL(fixture.stack.gatewayUrl).origin}/api/oauth/revoke`);
    expect(app.as.grant_types_supported).toEqual(["authorization_code", "refresh_token"]);
    expect(app.as.response_types_supported).toEqual(["code"]);
    expect(app.as.scopes_supported).toEqual([
      "meeting.create",
      "meeting.read",
      "meeting.update",
      "meeting.delete",
      "meeting.links",
      "recording.read",
      "recording.manage",
      "transcript.read",
      "transcript.manage",
      "webhook.create",
      "webhook.read",
      "webhook.update",
      "webhook.delete",
    ]);
    expect(app.as.token_endpoint_auth_methods_supported).toEqual(["client_secret_post", "client_secret_basic"]);
  });

  it("signs in, shows the app and each permission in words, and returns code and the unchanged state; the form-body exchange yields spec-shaped tokens that /auth accepts", async () => {
    const state = "state-Ab_9.~ünïcode";
    const page = await session.newPage();
    await page.goto(app.authorizeUrl({ scope: "meeting.create webhook.read", state }));

    // Sign-in page: labelled inputs, the "Sign in" button, the application's name.
    await expect(page.getByRole("heading", { name: "Sign in" }).isVisible()).resolves.toBe(true);
    expect(await page.textContent("main")).toContain("Cal Scheduler");
    expect(await unlabelledControls(page)).toEqual([]);
    await signIn(page, { email: user.email, password: "wrong password" });
    expect(await page.getByRole("alert").textContent()).toBe("The e-mail address or password is incorrect.");
    await signIn(page, user);

    // Consent page: who is signed in, the application, each permission in words, Allow and Deny.
    await expect(page.getByRole("heading", { name: "Allow Cal Scheduler to access your account?" }).isVisible()).resolves.toBe(true);
    expect(await page.textContent("main")).toContain(user.email);
    // Who registered the application (any organization can name one anything) and where the browser goes next.
    expect(await page.locator("#registered-by").textContent()).toBe("App Developer Inc");
    expect(await page.locator("#redirect-host").textContent()).toBe(new URL(app.redirectUri).host);
    await page.screenshot({ path: path.join(os.tmpdir(), "svc-issue-33-consent.png"), fullPage: true });
    expect(await page.getByRole("listitem").allTextContents()).toEqual(["Create meetings for you", "See your organization's webhooks"]);
    expect(await unlabelledControls(page)).toEqual([]);
    expect(await page.getByRole("button", { name: "Deny" }).isVisible()).toBe(true);
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((url) => url.href.startsWith(app.redirectUri));
    const callback = new URL(page.url());
    await page.close();

    expect(callback.origin + callback.pathname).toBe(app.redirectUri);
    expect(callback.searchParams.get("state")).toBe(state);
    expect(callback.searchParams.get("code")).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const { raw, tokens } = await exchangeCode(app, callback.href, state);
    expect(raw.token_type).toBe("bearer");
    expect(raw.expires_in).toBe(3600);
    expect(raw.scope).toBe("meeting.create webhook.read");
    expect(raw.access_token).toMatch(/^svc_oauth_[A-Za-z0-9_-]{43}$/);
    expect(raw.refresh_token).toMatch(/^svc_rt_[A-Za-z0-9_-]{43}$/);
    expect(raw).not.toHaveProperty("id_token");

    const verified = await verifyAtApi(fixture.stack, tokens.access_token);
    expect(verified).toEqual({
      status: 200,
      body: { valid: true, userId: user.userId, orgId: user.orgId, kind: "oauth", scopes: ["meeting.create", "webhook.read"], clientId: app.clientId },
    });
  });

  it("a second authorization in the same browser session asks only for consent; its code is exchanged with a JSON body at /api/v1/oauth/token", async () => {
    const state = "second-authorization";
    const { callbackUrl, askedToSignIn } = await authorizeInBrowser(session, app, app.authorizeUrl({ scope: "meeting.create", state, apiPath: true }), user);
    expect(askedToSignIn).toBe(false);
    const callback = new URL(callbackUrl);
    expect(callback.searchParams.get("state")).toBe(state);

    const response = await fetch(`${fixture.stack.gatewayUrl}/api/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        grant_type: "authorization_code",
        code: callback.searchParams.get("code"),
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: app.redirectUri,
      }),
    });
    const raw = await response.clone().json();
    expect(response.status).toBe(200);
    expect(raw).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: "meeting.create" });
    const tokens = await oauth.processAuthorizationCodeResponse(app.as, app.client, response);
    expect(tokens.access_token).toMatch(/^svc_oauth_/);
    expect(tokens.refresh_token).toMatch(/^svc_rt_/);
    expect((await verifyAtApi(fixture.stack, tokens.access_token)).body).toMatchObject({ userId: user.userId, scopes: ["meeting.create"] });
  });

  it("Deny sends the browser back with error=access_denied and the unchanged state, and no code", async () => {
    const state = "user-says-no";
    const { callbackUrl } = await authorizeInBrowser(session, app, app.authorizeUrl({ scope: "webhook.read", state }), user, "Deny");
    const callback = new URL(callbackUrl);
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("state")).toBe(state);
    expect(callback.searchParams.has("code")).toBe(false);
    expect(() => oauth.validateAuthResponse(app.as, app.client, callback, state)).toThrow(oauth.AuthorizationResponseError);
  });

  it.each<[string, { clientId?: string; redirectUri?: string }, string]>([
    ["an unknown client", { clientId: "00000000-0000-4000-8000-000000000000" }, "invalid_client"],
    ["a redirect URI that is not registered", { redirectUri: "https://attacker.example/callback" }, "invalid_redirect_uri"],
    ["a redirect URI that only extends a registered one", { redirectUri: "REGISTERED/extra" }, "invalid_redirect_uri"],
  ])("%s gets an error page and is never redirected", async (_case, override, error) => {
    const redirectUri = override.redirectUri?.replace("REGISTERED", app.redirectUri);
    const url = app.authorizeUrl({ scope: "meeting.create", state: "s", ...override, ...(redirectUri ? { redirectUri } : {}) });
    const page = await session.newPage();
    const response = await page.goto(url);
    expect(response?.status()).toBe(400);
    expect(new URL(page.url()).origin).toBe(new URL(fixture.stack.gatewayUrl).origin);
    await expect(page.getByRole("heading", { name: "This request cannot be completed" }).isVisible()).resolves.toBe(true);
    expect(await page.textContent("code")).toBe(error);
    await page.close();
    const plain = await fetch(url, { redirect: "manual" });
    expect(plain.status).toBe(400);
    expect(plain.headers.get("location")).toBeNull();
  });

  it("a refresh rotates both tokens; the new access token works at /auth", async () => {
    const state = "refresh";
    const { callbackUrl } = await authorizeInBrowser(session, app, app.authorizeUrl({ scope: "meeting.create webhook.read", state }), user);
    const { tokens } = await exchangeCode(app, callbackUrl, state);
    const response = await oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, tokens.refresh_token!, insecure);
    const raw = await response.clone().json();
    expect(raw).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: "meeting.create webhook.read" });
    const refreshed = await oauth.processRefreshTokenResponse(app.as, app.client, response);
    expect(refreshed.refresh_token).toMatch(/^svc_rt_/);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await verifyAtApi(fixture.stack, refreshed.access_token)).status).toBe(200);
  });

  it("HTTP Basic client authentication is accepted as well as client_secret_post", async () => {
    const state = "basic";
    const { callbackUrl } = await authorizeInBrowser(session, app, app.authorizeUrl({ scope: "webhook.read", state }), user);
    const parameters = oauth.validateAuthResponse(app.as, app.client, new URL(callbackUrl), state);
    const response = await oauth.authorizationCodeGrantRequest(
      app.as,
      app.client,
      oauth.ClientSecretBasic(app.clientSecret),
      parameters,
      app.redirectUri,
      oauth.nopkce,
      insecure,
    );
    expect((await oauth.processAuthorizationCodeResponse(app.as, app.client, response)).scope).toBe("webhook.read");
  });

  it("scopes are enforced by the services: a webhook.read token gets 403 Insufficient scope on POST /meeting, a meeting.create token creates one", async () => {
    const readOnly = await createOAuthApp(fixture.stack, developer, { name: "Webhook Viewer", scopes: "webhook.read" });
    try {
      const state = "narrow";
      const { callbackUrl } = await authorizeInBrowser(session, readOnly, readOnly.authorizeUrl({ scope: "webhook.read", state }), user);
      const { tokens } = await exchangeCode(readOnly, callbackUrl, state);
      const { error, response: refused } = await fixture.client(tokens.access_token).POST("/meeting", { body: { title: "Not allowed" } });
      expect(refused.status).toBe(403);
      expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="svc", error="insufficient_scope", scope="meeting.create"');
      expect(error).toMatchObject({ error: "Insufficient scope: meeting.create" });
    } finally {
      await readOnly.close();
    }

    const state = "create";
    const { callbackUrl } = await authorizeInBrowser(session, app, app.authorizeUrl({ scope: "meeting.create", state }), user);
    const { tokens } = await exchangeCode(app, callbackUrl, state);
    const created = await fixture.client(tokens.access_token).POST("/meeting", { body: { title: "Planned through OAuth" } });
    expect(created.response.status).toBe(200);
    expect(created.data).toMatchObject({ type: "svc_video", password: "" });
  });

  it("RFC 7009 revocation: a revoked access token is refused at /auth at once; revoking a refresh token ends the whole authorization", async () => {
    const state = "revoke";
    const first = await authorizeInBrowser(session, app, app.authorizeUrl({ scope: "webhook.read", state }), user);
    const { tokens } = await exchangeCode(app, first.callbackUrl, state);
    expect((await verifyAtApi(fixture.stack, tokens.access_token)).status).toBe(200); // now cached by identity
    await oauth.processRevocationResponse(await oauth.revocationRequest(app.as, app.client, app.auth, tokens.access_token, insecure));
    expect((await verifyAtApi(fixture.stack, tokens.access_token)).status).toBe(401);

    const second = await authorizeInBrowser(session, app, app.authorizeUrl({ scope: "webhook.read", state }), user);
    const { tokens: other } = await exchangeCode(app, second.callbackUrl, state);
    expect((await verifyAtApi(fixture.stack, other.access_token)).status).toBe(200);
    // JSON body at the /api/v1 alias of the revocation endpoint.
    const revoked = await fetch(`${fixture.stack.gatewayUrl}/api/v1/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: other.refresh_token, client_id: app.clientId, client_secret: app.clientSecret }),
    });
    expect(revoked.status).toBe(200);
    expect((await verifyAtApi(fixture.stack, other.access_token)).status).toBe(401);
    const refresh = await tokenRequest(fixture.stack, {
      grant_type: "refresh_token",
      refresh_token: other.refresh_token!,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
    expect(refresh).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });
});
