import type { Middleware } from "koa";
import { OAUTH_PATHS } from "./oauth-paths.ts";

/** The aliases the specification's OpenAPI description uses for the canonical paths in oauth-paths.ts. */
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
