import { z } from "zod";

/**
 * The OAuth 2.0 endpoints' messages (RFC 6749, RFC 7009). identity's authorization server
 * (oidc-provider) parses and answers them, not the gateway, which proxies these paths unchanged:
 * these schemas document that behaviour.
 */
export const AuthorizeQuery = z.object({
  client_id: z.string().meta({ minLength: 1 }),
  redirect_uri: z.string().meta({ format: "uri", description: "Must equal a registered redirect URI exactly." }),
  scope: z.string().meta({ description: "Space-separated scopes, each within the client's allowance." }),
  response_type: z.literal("code"),
  state: z.string().optional().meta({ description: "Opaque value returned unchanged (recommended, against CSRF)." }),
  code_challenge: z.string().optional().meta({ description: "PKCE (RFC 7636), S256 only; optional for confidential clients." }),
  code_challenge_method: z.literal("S256").optional(),
  response_mode: z.literal("query").optional().meta({
    description: "Only `query` (the default); `fragment` and `form_post` are answered with `error=unsupported_response_mode` in the redirect's query.",
  }),
});

export const TokenRequest = z
  .object({
    grant_type: z.enum(["authorization_code", "refresh_token"]),
    code: z.string().optional().meta({ description: "authorization_code only." }),
    redirect_uri: z.string().optional().meta({ format: "uri", description: "authorization_code only: the one of the authorization request." }),
    code_verifier: z.string().optional().meta({ description: "authorization_code with PKCE only." }),
    refresh_token: z.string().optional().meta({ description: "refresh_token only (prefix svc_rt_)." }),
    scope: z.string().optional().meta({ description: "refresh_token only, optional: narrow the scopes of the new access token." }),
    client_id: z.string(),
    client_secret: z.string().optional().meta({ description: "Required unless sent with HTTP Basic." }),
  })
  .meta({ id: "TokenRequest" });

// Responses stay open to members we do not list: RFC 6749 lets the server add parameters.
export const TokenResponse = z
  .looseObject({
    access_token: z.string().meta({ pattern: "^svc_oauth_", description: "Opaque Bearer token for the API." }),
    refresh_token: z.string().meta({ pattern: "^svc_rt_", description: "Single use; store the new one from every response." }),
    token_type: z.literal("bearer"),
    expires_in: z.literal(3600),
    scope: z.string().meta({ description: "Space-separated granted scopes." }),
  })
  .meta({ id: "TokenResponse" });

export const RevocationRequest = z
  .object({
    token: z.string(),
    token_type_hint: z.enum(["access_token", "refresh_token"]).optional(),
    client_id: z.string(),
    client_secret: z.string().optional(),
  })
  .meta({ id: "RevocationRequest" });

export const OAuthError = z
  .looseObject({
    error: z.enum(["invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope", "server_error"]),
    error_description: z.string().optional(),
  })
  .meta({ id: "OAuthError" });
