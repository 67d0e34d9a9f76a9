import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { launchChromium } from "../support/chromium.ts";
import { authorizeInBrowser } from "./support/browser.ts";
import { createOAuthApp, sha256Hex, tokenRequest, verifyAtApi, type OAuthApp } from "./support/oauth-app.ts";
import { holdStill } from "../support/hold-still.ts";

describe("OAuth token endpoint refuses attacks and mistakes (RFC 6749 errors; docs/decisions/0005-oauth-token-lifetimes-and-rotation.md)", () => {
  let user: Tenant;
  let app: OAuthApp;
  let otherApp: OAuthApp;
  let browser: Browser;
  let session: BrowserContext;
  const fixture = useStack();

  beforeAll(async () => {
    const developer = await createTenant(fixture.stack);
    user = await createTenant(fixture.stack);
    app = await createOAuthApp(fixture.stack, developer, { scopes: "meeting.create webhook.read" });
    otherApp = await createOAuthApp(fixture.stack, developer, { name: "Other App", scopes: "meeting.create webhook.read" });
    browser = await launchChromium();
    session = await browser.newContext();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await otherApp?.close();
  });

  /** A fresh authorization code for `app`, through sign-in (first time) and consent in Chromium. */
  async function newCode(forApp = app, scope = "meeting.create webhook.read"): Promise<string> {
    const { callbackUrl } = await authorizeInBrowser(session, forApp, forApp.authorizeUrl({ scope, state: "s" }), user);
    return new URL(callbackUrl).searchParams.get("code")!;
  }

  const exchange = (code: string, overrides: Record<string, string> = {}, forApp = app) =>
    tokenRequest(fixture.stack, {
      grant_type: "authorization_code",
      code,
      redirect_uri: forApp.redirectUri,
      client_id: forApp.clientId,
      client_secret: forApp.clientSecret,
      ...overrides,
    });

  const refresh = (refreshToken: string, forApp = app) =>
    tokenRequest(fixture.stack, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: forApp.clientId, client_secret: forApp.clientSecret });

  async function newTokens() {
    const { status, body } = await exchange(await newCode());
    expect(status).toBe(200);
    return body as { access_token: string; refresh_token: string };
  }

  /** Moves a stored code or token `ageSeconds` into the past, as if the clock had advanced. */
  async function age(model: "AuthorizationCode" | "AccessToken", value: string, ageSeconds: number) {
    const { rowCount } = await fixture.stack.query(
      `UPDATE identity.oauth_artifacts
          SET expires_at = expires_at - make_interval(secs => $3),
              payload = payload || jsonb_build_object('iat', (payload->>'iat')::bigint - $3, 'exp', (payload->>'exp')::bigint - $3)
        WHERE model = $1 AND id_hash = $2`,
      [model, sha256Hex(value), ageSeconds],
    );
    expect(rowCount).toBe(1);
  }

  it("a reused authorization code gets invalid_grant and revokes the tokens issued from it", async () => {
    const code = await newCode();
    const first = await exchange(code);
    expect(first.status).toBe(200);
    const { access_token, refresh_token } = first.body as { access_token: string; refresh_token: string };
    expect((await verifyAtApi(fixture.stack, access_token)).status).toBe(200); // cached in identity now

    const replay = await exchange(code);
    expect(replay).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await verifyAtApi(fixture.stack, access_token)).status).toBe(401);
    expect(await refresh(refresh_token)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("two simultaneous exchanges of one code: exactly one gets tokens, the other invalid_grant, and the grant ends", async () => {
    const code = await newCode();
    const results = await Promise.all([exchange(code), exchange(code)]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 400]);
    const winner = results.find((result) => result.status === 200)!.body as { access_token: string; refresh_token: string };
    expect(results.find((result) => result.status === 400)!.body.error).toBe("invalid_grant");
    expect((await verifyAtApi(fixture.stack, winner.access_token)).status).toBe(401);
    expect((await refresh(winner.refresh_token)).body.error).toBe("invalid_grant");
  });

  it("a code is good for 10 minutes (controlled clock): 9 minutes old it is exchanged, 10 minutes and 1 second old it gets invalid_grant", async () => {
    const fresh = await newCode();
    await age("AuthorizationCode", fresh, 9 * 60);
    expect((await exchange(fresh)).status).toBe(200);

    const stale = await newCode();
    await age("AuthorizationCode", stale, 10 * 60 + 1);
    expect(await exchange(stale)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("lifetimes: code 10 minutes, access token 1 hour, each refresh token 30 days from its own issue, within the grant's 1-year lifetime", async () => {
    const code = await newCode();
    const lifetime = async (model: string, value: string) => {
      const { rows } = await fixture.stack.query<{ iat: number; exp: number; ttl: number }>(
        `SELECT (payload->>'iat')::int AS iat, (payload->>'exp')::int AS exp, round(extract(epoch FROM expires_at - now()))::int AS ttl
           FROM identity.oauth_artifacts WHERE model = $1 AND id_hash = $2`,
        [model, sha256Hex(value)],
      );
      return rows[0]!;
    };
    const codeRow = await lifetime("AuthorizationCode", code);
    expect(codeRow.exp - codeRow.iat).toBe(600);
    const first = (await exchange(code)).body as { access_token: string; refresh_token: string };
    const accessRow = await lifetime("AccessToken", first.access_token);
    expect(accessRow.exp - accessRow.iat).toBe(3600);
    expect(Math.abs(accessRow.ttl - 3600)).toBeLessThanOrEqual(5);
    const firstRefresh = await lifetime("RefreshToken", first.refresh_token);
    expect(firstRefresh.exp - firstRefresh.iat).toBe(30 * 24 * 3600);

    await holdStill(1100, "so a fixed expiry would show");
    const second = (await refresh(first.refresh_token)).body as { refresh_token: string };
    const secondRefresh = await lifetime("RefreshToken", second.refresh_token);
    expect(secondRefresh.iat).toBeGreaterThan(firstRefresh.iat);
    // The specification's table: a refresh token is valid within 30 days (of its own issue).
    expect(secondRefresh.exp - secondRefresh.iat).toBe(30 * 24 * 3600);
    expect(Math.abs(secondRefresh.ttl - 30 * 24 * 3600)).toBeLessThanOrEqual(5);

    // Near the grant's end (OAUTH_GRANT_LIFETIME_SECONDS, 1 year from the first exchange), a new
    // refresh token lives only until that end: the grant started 355 days ago here.
    const { rowCount } = await fixture.stack.query(
      `UPDATE identity.oauth_artifacts SET payload = payload || jsonb_build_object('iiat', (payload->>'iiat')::bigint - $2)
        WHERE model = 'RefreshToken' AND id_hash = $1`,
      [sha256Hex(second.refresh_token), 355 * 24 * 3600],
    );
    expect(rowCount).toBe(1);
    const third = await refresh(second.refresh_token);
    expect(third.status).toBe(200);
    const thirdRefresh = await lifetime("RefreshToken", (third.body as { refresh_token: string }).refresh_token);
    expect(Math.abs(thirdRefresh.ttl - 10 * 24 * 3600)).toBeLessThanOrEqual(5);
  });

  it("a reused refresh token gets invalid_grant, and the newest refresh and access tokens of that grant stop working", async () => {
    const original = await newTokens();
    const rotated = await refresh(original.refresh_token);
    expect(rotated.status).toBe(200);
    const newest = rotated.body as { access_token: string; refresh_token: string };
    expect((await verifyAtApi(fixture.stack, newest.access_token)).status).toBe(200);

    expect(await refresh(original.refresh_token)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await refresh(newest.refresh_token)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await verifyAtApi(fixture.stack, newest.access_token)).status).toBe(401);
    expect((await verifyAtApi(fixture.stack, original.access_token)).status).toBe(401);
  });

  it("two simultaneous refreshes with one refresh token: one succeeds, the other gets invalid_grant and the grant ends", async () => {
    const tokens = await newTokens();
    const results = await Promise.all([refresh(tokens.refresh_token), refresh(tokens.refresh_token)]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 400]);
    const winner = results.find((result) => result.status === 200)!.body as { access_token: string; refresh_token: string };
    expect((await verifyAtApi(fixture.stack, winner.access_token)).status).toBe(401);
    expect((await refresh(winner.refresh_token)).body.error).toBe("invalid_grant");
  });

  it("a wrong client secret gets 401 invalid_client, in the body and with HTTP Basic; an unknown client too", async () => {
    const code = await newCode();
    const wrong = await exchange(code, { client_secret: `${app.clientSecret}x` });
    expect(wrong).toMatchObject({ status: 401, body: { error: "invalid_client" } });

    const basic = await tokenRequest(
      fixture.stack,
      { grant_type: "authorization_code", code, redirect_uri: app.redirectUri },
      { headers: { authorization: `Basic ${Buffer.from(`${app.clientId}:not-the-secret`).toString("base64")}` } },
    );
    expect(basic).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    expect(basic.headers.get("www-authenticate")).toMatch(/^Basic /);

    const unknown = await exchange(code, { client_id: "00000000-0000-4000-8000-000000000000" });
    expect(unknown).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    // None of these consumed the code.
    expect((await exchange(code)).status).toBe(200);
  });

  it("a code issued to one client gets invalid_grant when another client presents it", async () => {
    const code = await newCode();
    expect(await exchange(code, { redirect_uri: app.redirectUri }, otherApp)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it.each(["password", "client_credentials", "implicit", "urn:ietf:params:oauth:grant-type:device_code", "made_up"])(
    "grant_type=%s gets 400 unsupported_grant_type",
    async (grantType) => {
      const result = await tokenRequest(fixture.stack, {
        grant_type: grantType,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        username: user.email,
        password: user.password,
      });
      expect(result).toMatchObject({ status: 400, body: { error: "unsupported_grant_type" } });
    },
  );

  it.each([
    ["grant_type", { grant_type: undefined }],
    ["code", { code: undefined }],
    ["redirect_uri", { redirect_uri: undefined }],
    ["client_id and client_secret", { client_id: undefined, client_secret: undefined }],
  ])("a code exchange without %s gets 400 invalid_request", async (_missing, omit) => {
    const fields: Record<string, string | undefined> = {
      grant_type: "authorization_code",
      code: "some-code",
      redirect_uri: app.redirectUri,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      ...omit,
    };
    const sent = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Record<string, string>;
    const result = await tokenRequest(fixture.stack, sent);
    expect(result.status).toBe(400);
    expect(result.body.error).toBe("invalid_request");
    expect(result.body.error_description).toEqual(expect.any(String));
  });

  it("a refresh without refresh_token gets 400 invalid_request", async () => {
    const result = await tokenRequest(fixture.stack, { grant_type: "refresh_token", client_id: app.clientId, client_secret: app.clientSecret });
    expect(result).toMatchObject({ status: 400, body: { error: "invalid_request" } });
  });

  it("a redirect_uri at the token endpoint that differs from the authorization request's gets invalid_grant", async () => {
    const code = await newCode();
    expect(await exchange(code, { redirect_uri: `${app.redirectUri}?other=1` })).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it.each([
    ["a scope outside the client's allowance", "meeting.create webhook.delete", "invalid_scope"],
    ["an unknown scope", "meeting.create calendar.read", "invalid_scope"],
    ["openid (not offered)", "openid meeting.create", "invalid_scope"],
    ["no scope at all", "", "invalid_request"],
  ])("%s is redirected to the registered redirect URI with error=%s and the state, before any sign-in", async (_case, scope, error) => {
    const response = await fetch(app.authorizeUrl({ scope, state: "keep-me" }), { redirect: "manual" });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get("location")!);
    expect(location.origin + location.pathname).toBe(app.redirectUri);
    expect(location.searchParams.get("error")).toBe(error);
    expect(location.searchParams.get("state")).toBe("keep-me");
    expect(location.searchParams.has("code")).toBe(false);
  });

  it("an expired access token (controlled clock: 1 hour and 1 second old) gets 401 at /auth", async () => {
    const tokens = await newTokens();
    await age("AccessToken", tokens.access_token, 3600 + 1);
    const result = await verifyAtApi(fixture.stack, tokens.access_token);
    expect(result.status).toBe(401);
    expect(result.body.error).toEqual(expect.any(String));
  });

  it("token errors are JSON even for a browser-like Accept header, and a malformed JSON body is invalid_request", async () => {
    const html = await tokenRequest(fixture.stack, { grant_type: "password" }, { headers: { accept: "text/html" } });
    expect(html.status).toBe(400);
    expect(html.headers.get("content-type")).toMatch(/^application\/json/);
    const response = await fetch(`${fixture.stack.gatewayUrl}/api/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_request" });
  });

  it("deleting the client (CLI) ends every grant and token issued to it", async () => {
    const doomed = await createOAuthApp(fixture.stack, user, { name: "Doomed", scopes: "webhook.read" });
    try {
      const code = await newCode(doomed, "webhook.read");
      const tokens = (await exchange(code, {}, doomed)).body as { access_token: string; refresh_token: string };
      expect((await verifyAtApi(fixture.stack, tokens.access_token)).status).toBe(200);
      expect(await fixture.stack.cli("oauth-clients", "delete", "--client-id", doomed.clientId)).toEqual({ clientId: doomed.clientId, deleted: true });
      expect((await verifyAtApi(fixture.stack, tokens.access_token)).status).toBe(401);
      expect(await refresh(tokens.refresh_token, doomed)).toMatchObject({ status: 401, body: { error: "invalid_client" } });
      const { rows } = await fixture.stack.query("SELECT count(*)::int AS n FROM identity.oauth_artifacts WHERE client_id = $1", [doomed.clientId]);
      expect(rows[0]!.n).toBe(0);
    } finally {
      await doomed.close();
    }
  });

  it("the database holds no plaintext authorization code, access or refresh token, client secret or session cookie, only their SHA-256", async () => {
    const code = await newCode();
    const { rows: codeRows } = await fixture.stack.query("SELECT 1 FROM identity.oauth_artifacts WHERE model = 'AuthorizationCode' AND id_hash = $1", [
      sha256Hex(code),
    ]);
    expect(codeRows).toHaveLength(1);
    const issued = (await exchange(code)).body as { access_token: string; refresh_token: string };
    const rotated = (await refresh(issued.refresh_token)).body as { access_token: string; refresh_token: string };
    const sessionCookies = (await session.cookies()).filter((cookie) => cookie.name.startsWith("_session")).map((cookie) => cookie.value);
    expect(sessionCookies.length).toBeGreaterThan(0);

    const secrets = [
      code,
      issued.access_token,
      issued.refresh_token,
      rotated.access_token,
      rotated.refresh_token,
      app.clientSecret,
      otherApp.clientSecret,
      ...sessionCookies,
    ];
    const { rows: tables } = await fixture.stack.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'identity' AND table_type = 'BASE TABLE'",
    );
    expect(tables.map((table) => table.table_name)).toEqual(expect.arrayContaining(["oauth_artifacts", "oauth_clients"]));
    let dump = "";
    for (const { table_name } of tables) {
      const { rows } = await fixture.stack.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM identity."${table_name}" t`);
      dump += rows.map((row) => row.row).join("\n");
    }
    for (const secret of secrets) expect(dump).not.toContain(secret);

    for (const [model, value] of [
      ["AuthorizationCode", code],
      ["AccessToken", rotated.access_token],
      ["RefreshToken", issued.refresh_token],
      ["RefreshToken", rotated.refresh_token],
    ] as const) {
      const { rowCount } = await fixture.stack.query("SELECT 1 FROM identity.oauth_artifacts WHERE model = $1 AND id_hash = $2", [model, sha256Hex(value)]);
      expect(rowCount, `${model} stored by hash`).toBe(1);
    }
    const { rows: clientRows } = await fixture.stack.query<{ secret_hash: string }>("SELECT secret_hash FROM identity.oauth_clients WHERE client_id = $1", [
      app.clientId,
    ]);
    expect(clientRows[0]!.secret_hash).toBe(sha256Hex(app.clientSecret));
  });
});
