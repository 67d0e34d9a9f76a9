import type { Middleware } from "koa";

/**
 * The public paths of the authorization server. The specification's prose and its OpenAPI
 * description name different paths for the same endpoints, so each has a canonical path (the one
 * oidc-provider routes and the metadata advertises) and aliases rewritten to it before routing.
 * The gateway forwards all of them, unchanged, to this listener.
 */
export const OAUTH_PATHS = {
  authorization: "/oauth/authorize",
  token: "/api/oauth/token",
  revocation: "/api/oauth/revoke",
  interaction: "/oauth/interaction",
  metadata: "/.well-known/oauth-authorization-server",
} as const;

const ALIASES = new Map<string, string>([
  ["/api/v1/oauth/authorize", OAUTH_PATHS.authorization],
  ["/api/v1/oauth/token", OAUTH_PATHS.token],
  ["/api/v1/oauth/revoke", OAUTH_PATHS.revocation],
  ["/oauth/revoke", OAUTH_PATHS.revocation],
]);

/** Rewrites an alias to its canonical path, so one oidc-provider route serves both. */
export const rewriteAliases: Middleware = async (ctx, next) => {
  const canonical = ALIASES.get(ctx.path);
  if (canonical) ctx.path = canonical;
  await next();
};
