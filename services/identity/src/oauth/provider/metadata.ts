import type { Middleware } from "koa";
import { OAUTH_PATHS } from "@svc/platform/contract";
import { ALL_SCOPES } from "./scopes.ts";

/** The RFC 8414 members that describe this server; oidc-provider's OpenID Connect extras are dropped. */
const KEPT = [
  "issuer",
  "authorization_endpoint",
  "token_endpoint",
  "revocation_endpoint",
  "response_types_supported",
  "response_modes_supported",
  "grant_types_supported",
  "token_endpoint_auth_methods_supported",
  "revocation_endpoint_auth_methods_supported",
  "code_challenge_methods_supported",
  "authorization_response_iss_parameter_supported",
];

/**
 * RFC 8414 metadata at /.well-known/oauth-authorization-server, from oidc-provider's discovery
 * document: only OAuth members, and our API scopes (oidc-provider lists only OpenID scopes,
 * because ours belong to a resource server).
 */
export const shapeMetadata: Middleware = async (ctx, next) => {
  await next();
  if (ctx.path !== OAUTH_PATHS.metadata || ctx.status !== 200) return;
  const document = ctx.body as Record<string, unknown>;
  ctx.body = {
    ...Object.fromEntries(KEPT.filter((name) => document[name] !== undefined).map((name) => [name, document[name]])),
    scopes_supported: ALL_SCOPES,
  };
};
