import type { OpenApiFragment } from "./document.ts";

/**
 * The OAuth 2.0 endpoints (spec 4.6, 4.7; DESIGN.md section 4), served by identity's
 * authorization server through the gateway. Each is reachable under the API base and at the
 * site path of the specification's prose, hence the path-level `servers` (relative to the
 * origin that serves this document).
 */
const tokenError = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/OAuthError" } } },
});

const tokenRequestBody = {
  required: true,
  content: {
    "application/x-www-form-urlencoded": { schema: { $ref: "#/components/schemas/TokenRequest" } },
    "application/json": { schema: { $ref: "#/components/schemas/TokenRequest" } },
  },
};

export const oauthOpenApi: OpenApiFragment = {
  paths: {
    "/oauth/authorize": {
      servers: [{ url: "/api/v1" }, { url: "/" }],
      get: {
        operationId: "authorize",
        summary: "Start the authorization-code flow (browser redirect)",
        description:
          "The user signs in (e-mail and password) and sees a consent page naming the application and each requested permission. On approval the browser is redirected to `redirect_uri` with `code` (single use, valid 10 minutes), the unchanged `state` and `iss`; on denial with `error=access_denied` and `state`. Scopes outside the client's allowance redirect with `error=invalid_scope`. An unknown client or a `redirect_uri` that is not registered exactly shows an error page and never redirects.",
        tags: ["OAuth 2.0"],
        security: [],
        parameters: [
          { name: "client_id", in: "query", required: true, schema: { type: "string", minLength: 1 } },
          { name: "redirect_uri", in: "query", required: true, schema: { type: "string", format: "uri" }, description: "Must equal a registered redirect URI exactly." },
          { name: "scope", in: "query", required: true, schema: { type: "string" }, description: "Space-separated scopes, each within the client's allowance." },
          { name: "response_type", in: "query", required: true, schema: { type: "string", const: "code" } },
          { name: "state", in: "query", required: false, schema: { type: "string" }, description: "Opaque value returned unchanged (recommended, against CSRF)." },
          { name: "code_challenge", in: "query", required: false, schema: { type: "string" }, description: "PKCE (RFC 7636), S256 only; optional for confidential clients." },
          { name: "code_challenge_method", in: "query", required: false, schema: { type: "string", const: "S256" } },
        ],
        responses: {
          "303": { description: "To the sign-in or consent page, or back to `redirect_uri` with `code` and `state` (or `error` and `state`)." },
          "400": { description: "HTML error page: unknown client, unregistered redirect URI or a malformed request that cannot be redirected.", content: { "text/html": {} } },
        },
      },
    },
    "/oauth/token": {
      servers: [{ url: "/api/v1" }, { url: "/api" }],
      post: {
        operationId: "token",
        summary: "Exchange an authorization code, or refresh",
        description:
          "Grant types `authorization_code` and `refresh_token` only. The client authenticates with `client_id` and `client_secret` in the body (`client_secret_post`) or with HTTP Basic. Codes are single use; refresh tokens are single use and rotate on every refresh, valid for 30 days from the first exchange of the authorization (rotation does not extend that). A second use of a code or of a used refresh token fails with `invalid_grant` and revokes every token of that authorization.",
        tags: ["OAuth 2.0"],
        security: [],
        requestBody: tokenRequestBody,
        responses: {
          "200": { description: "Tokens issued.", content: { "application/json": { schema: { $ref: "#/components/schemas/TokenResponse" } } } },
          "400": tokenError("`invalid_request` (missing or repeated parameters, malformed body), `invalid_grant` (code or refresh token invalid, expired, already used, or issued to another client or redirect URI), `unsupported_grant_type`, `invalid_scope`."),
          "401": tokenError("`invalid_client`: unknown client or wrong secret."),
        },
      },
    },
    "/oauth/revoke": {
      servers: [{ url: "/api/v1" }, { url: "/api" }, { url: "/" }],
      post: {
        operationId: "revokeToken",
        summary: "Revoke a token (RFC 7009)",
        description:
          "Revokes an access token, or a refresh token together with every token of its authorization. Client authentication as at the token endpoint. Answers 200 also for unknown tokens, as RFC 7009 requires.",
        tags: ["OAuth 2.0"],
        security: [],
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": { schema: { $ref: "#/components/schemas/RevocationRequest" } },
            "application/json": { schema: { $ref: "#/components/schemas/RevocationRequest" } },
          },
        },
        responses: {
          "200": { description: "Revoked, or unknown." },
          "400": tokenError("`invalid_request`, for example a token issued to another client."),
          "401": tokenError("`invalid_client`."),
        },
      },
    },
  },
  schemas: {
    TokenRequest: {
      type: "object",
      required: ["grant_type", "client_id"],
      properties: {
        grant_type: { type: "string", enum: ["authorization_code", "refresh_token"] },
        code: { type: "string", description: "authorization_code only." },
        redirect_uri: { type: "string", format: "uri", description: "authorization_code only: the one of the authorization request." },
        code_verifier: { type: "string", description: "authorization_code with PKCE only." },
        refresh_token: { type: "string", description: "refresh_token only (prefix svc_rt_)." },
        scope: { type: "string", description: "refresh_token only, optional: narrow the scopes of the new access token." },
        client_id: { type: "string" },
        client_secret: { type: "string", description: "Required unless sent with HTTP Basic." },
      },
    },
    TokenResponse: {
      type: "object",
      required: ["access_token", "refresh_token", "token_type", "expires_in", "scope"],
      properties: {
        access_token: { type: "string", pattern: "^svc_oauth_", description: "Opaque Bearer token for the API." },
        refresh_token: { type: "string", pattern: "^svc_rt_", description: "Single use; store the new one from every response." },
        token_type: { type: "string", const: "bearer" },
        expires_in: { type: "integer", const: 3600 },
        scope: { type: "string", description: "Space-separated granted scopes." },
      },
    },
    RevocationRequest: {
      type: "object",
      required: ["token", "client_id"],
      properties: {
        token: { type: "string" },
        token_type_hint: { type: "string", enum: ["access_token", "refresh_token"] },
        client_id: { type: "string" },
        client_secret: { type: "string" },
      },
    },
    OAuthError: {
      type: "object",
      required: ["error"],
      properties: {
        error: {
          type: "string",
          enum: ["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope", "server_error"],
        },
        error_description: { type: "string" },
      },
    },
  },
};
