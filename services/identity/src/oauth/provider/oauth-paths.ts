/**
 * The public paths of the authorization server. The specification's prose and its OpenAPI
 * description name different paths for the same endpoints, so each has a canonical path (the one
 * oidc-provider routes and the metadata advertises) and aliases rewritten to it before routing.
 * The gateway forwards all of them, unchanged, to this listener (aliases: rewrite-path-aliases.ts).
 */
export const OAUTH_PATHS = {
  authorization: "/oauth/authorize",
  token: "/api/oauth/token",
  revocation: "/api/oauth/revoke",
  interaction: "/oauth/interaction",
  metadata: "/.well-known/oauth-authorization-server",
} as const;
