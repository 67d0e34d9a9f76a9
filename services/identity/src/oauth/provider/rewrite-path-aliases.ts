import type { Middleware } from "koa";
import { OAUTH_PATH_ALIASES } from "@svc/platform/contract";

/** Rewrites an alias to its canonical path, so one oidc-provider route serves both. */
export const rewriteAliases: Middleware = async (ctx, next) => {
  const canonical = OAUTH_PATH_ALIASES.get(ctx.path);
  if (canonical) ctx.path = canonical;
  await next();
};
