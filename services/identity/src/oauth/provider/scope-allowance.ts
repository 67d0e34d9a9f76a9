import { errors } from "oidc-provider";
import { parseScopeParameter } from "./scopes.ts";

/**
 * Refuses an authorization request whose scopes are not all within the client's allowance
 * (its registered scopes, which are always known API scopes). oidc-provider would silently drop
 * such scopes, and the specification asks for `invalid_scope`; this runs inside its
 * authorization pipeline after the client and redirect URI were validated, so the error is
 * redirected to the registered redirect URI with the request's `state`.
 */
export function assertScopesAllowed(requested: string | undefined, allowed: readonly string[]): void {
  const scopes = parseScopeParameter(requested);
  if (scopes.length === 0) throw new errors.InvalidRequest("missing required parameter 'scope'");
  const refused = scopes.filter((scope) => !allowed.includes(scope));
  if (refused.length > 0) {
    throw new errors.InvalidScope(`requested scope is not allowed for this client: ${refused.join(" ")}`, refused.join(" "));
  }
}
