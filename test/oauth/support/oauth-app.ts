import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import * as oauth from "oauth4webapi";
import type { Stack } from "../../support/stack.ts";
import { createTenant, type Tenant } from "../../support/tenants.ts";
import { apiBase, callApi } from "../../support/rest-client.ts";
import { useResource } from "../../support/use-resource.ts";
import type { StackFixture } from "../../support/use-stack.ts";

/**
 * A third-party application as the tests play it: a registered OAuth client, a redirect URI
 * served by a real local HTTP server, and oauth4webapi (a maintained OAuth client library) for
 * discovery, response validation and the token endpoint.
 */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** RFC 8414 metadata, as oauth4webapi validated it. */
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  auth: oauth.ClientAuth;
  /** The authorization URL for `scope` and `state` (site path by default, or the /api/v1 form). */
  authorizeUrl(options: { scope: string; state: string; apiPath?: boolean; redirectUri?: string; clientId?: string }): string;
  close(): Promise<void>;
}

/** A tenant and the OAuth app it registered, read inside the file's tests (useOAuthApp). */
export interface OAuthAppFixture {
  readonly owner: Tenant;
  readonly app: OAuthApp;
}

/**
 * A new tenant and an OAuth app it registers, created before the file's (or block's) tests on
 * `fixture`'s stack and the app closed after them. Call it after useStack.
 */
export function useOAuthApp(fixture: StackFixture, options: { name?: string; scopes: string }): OAuthAppFixture {
  const registered = useResource(
    "the OAuth app",
    async () => {
      const owner = await createTenant(fixture.stack);
      return { owner, app: await createOAuthApp(fixture.stack, owner, options) };
    },
    ({ app }) => app.close(),
  );
  return {
    get owner() {
      return registered().owner;
    },
    get app() {
      return registered().app;
    },
  };
}

/** oauth4webapi refuses plain http unless told; the test stack runs on loopback http. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export async function createOAuthApp(stack: Stack, owner: Tenant, options: { name?: string; scopes: string }): Promise<OAuthApp> {
  const callbacks = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" }).end("application callback");
  });
  await new Promise<void>((resolve) => callbacks.listen(0, "127.0.0.1", resolve));
  const redirectUri = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}/callback`;
  const { clientId, clientSecret } = await stack.cli<{ clientId: string; clientSecret: string }>(
    "oauth-clients",
    "create",
    "--org",
    owner.orgId,
    "--name",
    options.name ?? "Scheduling App",
    "--redirect-uri",
    redirectUri,
    "--scopes",
    options.scopes,
  );
  const issuer = new URL(stack.gatewayUrl);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));
  return {
    clientId,
    clientSecret,
    redirectUri,
    as,
    client: { client_id: clientId },
    auth: oauth.ClientSecretPost(clientSecret),
    authorizeUrl({ scope, state, apiPath = false, redirectUri: overriddenRedirect, clientId: overriddenClient }) {
      const url = new URL(apiPath ? `${stack.gatewayUrl}/api/v1/oauth/authorize` : as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: overriddenClient ?? clientId,
        redirect_uri: overriddenRedirect ?? redirectUri,
        scope,
        response_type: "code",
        state,
      }).toString();
      return url.href;
    },
    close: () => new Promise<void>((resolve) => callbacks.close(() => resolve())),
  };
}

/** Exchanges the code of a validated callback with oauth4webapi (form body, client_secret_post). */
export async function exchangeCode(app: OAuthApp, callbackUrl: string, state: string) {
  const parameters = oauth.validateAuthResponse(app.as, app.client, new URL(callbackUrl), state);
  const response = await oauth.authorizationCodeGrantRequest(app.as, app.client, app.auth, parameters, app.redirectUri, oauth.nopkce, insecure);
  const raw = (await response.clone().json()) as Record<string, unknown>;
  return { raw, tokens: await oauth.processAuthorizationCodeResponse(app.as, app.client, response) };
}

/** A raw token-endpoint request (form-encoded unless `json`), for the cases a library would not send. */
export async function tokenRequest(
  stack: Stack,
  fields: Record<string, string>,
  options: { json?: boolean; path?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${stack.gatewayUrl}${options.path ?? "/api/oauth/token"}`, {
    method: "POST",
    headers: { "content-type": options.json ? "application/json" : "application/x-www-form-urlencoded", ...options.headers },
    body: options.json ? JSON.stringify(fields) : new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

/** POST /api/v1/auth with a Bearer token: what the API says about it. */
export async function verifyAtApi(stack: Stack, token: string) {
  const response = await callApi(apiBase(stack), "POST", "/auth", { key: token });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * GET /oauth/authorize for `clientId` (redirect URI https://pkce.example/cb, scope meeting.read),
 * without following the redirect: its status and where it points.
 */
export async function authorizeRedirect(stack: Stack, clientId: string, extra: Record<string, string> = {}) {
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: "https://pkce.example/cb",
    response_type: "code",
    scope: "meeting.read",
    state: "s",
    ...extra,
  });
  const response = await fetch(`${stack.gatewayUrl}/oauth/authorize?${query}`, { redirect: "manual" });
  return { status: response.status, location: new URL(response.headers.get("location") ?? "/", stack.gatewayUrl) };
}

export const sha256Hex = (value: string) => createHash("sha256").update(value).digest("hex");
