import type { ZodOpenApiResponseObject } from "zod-openapi";
import { AuthorizeQuery, OAuthError, RevocationRequest, TokenRequest, TokenResponse } from "../contract/oauth.ts";
import type { OpenApiFragment } from "./document.ts";

/**
 * The OAuth 2.0 endpoints (spec 4.6, 4.7; docs/decisions/0005-oauth-token-lifetimes-and-rotation.md), served by identity's
 * authorization server through the gateway. Each is reachable under the API base and at the
 * site path of the specification's prose, hence the path-level `servers` (relative to the
 * origin that serves this document).
 */
const tokenError = (description: string): ZodOpenApiResponseObject => ({ description, content: { "application/json": { schema: OAuthError } } });

const tokenRequestBody = {
  required: true,
  content: {
    "application/x-www-form-urlencoded": { schema: TokenRequest },
    "application/json": { schema: TokenRequest },
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
          "The user signs in (e-mail and password) and sees a consent page naming the application and each requested permission. On approval the browser is redirected to `redirect_uri` with `code` (single use, valid 10 minutes), the unchanged `state` and `iss`; on denial with `error=access_denied` and `state`. Scopes outside the client's allowance redirect with `error=invalid_scope`. An unknown client or a `redirect_uri` that is not registered exactly shows an error page and never redirects. After 5 wrong passwords in one authorization request the browser is redirected to `redirect_uri` with `error=access_denied`.",
        tags: ["OAuth 2.0"],
        security: [],
        requestParams: { query: AuthorizeQuery },
        responses: {
          "303": { description: "To the sign-in or consent page, or back to `redirect_uri` with `code` and `state` (or `error` and `state`)." },
          "400": {
            description: "HTML error page: unknown client, unregistered redirect URI or a malformed request that cannot be redirected.",
            content: { "text/html": { schema: { type: "string" } } },
          },
        },
      },
    },
    "/oauth/token": {
      servers: [{ url: "/api/v1" }, { url: "/api" }],
      post: {
        operationId: "token",
        summary: "Exchange an authorization code, or refresh",
        description:
          "Grant types `authorization_code` and `refresh_token` only. The client authenticates with `client_id` and `client_secret` in the body (`client_secret_post`) or with HTTP Basic. Codes are single use; refresh tokens are single use and rotate on every refresh, each valid for 30 days from its own issue, never past the authorization's lifetime (`OAUTH_GRANT_LIFETIME_SECONDS`, default 1 year from the first exchange). A second use of a code or of a used refresh token fails with `invalid_grant` and revokes every token of that authorization.",
        tags: ["OAuth 2.0"],
        security: [],
        requestBody: tokenRequestBody,
        responses: {
          "200": { description: "Tokens issued.", content: { "application/json": { schema: TokenResponse } } },
          "400": tokenError(
            "`invalid_request` (missing or repeated parameters, malformed body), `invalid_grant` (code or refresh token invalid, expired, already used, or issued to another client or redirect URI), `unsupported_grant_type`, `invalid_scope`.",
          ),
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
            "application/x-www-form-urlencoded": { schema: RevocationRequest },
            "application/json": { schema: RevocationRequest },
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
};
