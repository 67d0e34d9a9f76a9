import type { ClientMetadata } from "oidc-provider";
import type { OAuthClientRecord } from "../../oauth-stores.ts";

/** Custom client metadata: the scopes the client may request (space-separated). */
export const ALLOWED_SCOPES_METADATA = "allowed_scopes";
/** Custom client metadata: its registration requires PKCE on every authorization request. */
export const REQUIRE_PKCE_METADATA = "require_pkce";

/**
 * A stored client as oidc-provider sees it: a confidential web client that may only use the
 * authorization-code grant (response type `code`) and refresh tokens, authenticating with its
 * secret in the body or with HTTP Basic. `client_secret` holds the secret's SHA-256; the
 * provider's secret comparison is replaced to hash the presented secret first
 * (see installHashedClientSecrets), and no feature that would use the secret as a key is enabled.
 * The allowance lives in custom metadata because oidc-provider refuses a standard `scope` value
 * made of resource-server scopes.
 */
export function clientMetadata(client: OAuthClientRecord): ClientMetadata {
  return {
    client_id: client.clientId,
    client_secret: client.secretHash,
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "client_secret_post",
    [ALLOWED_SCOPES_METADATA]: client.scopes.join(" "),
    [REQUIRE_PKCE_METADATA]: client.requirePkce,
  };
}

/**
 * Whether an authorization request of this client must carry a PKCE code_challenge: always for a
 * public client (no secret: PKCE is all that binds the code to it, RFC 9700 §2.1.1), and for a
 * confidential one whose registration asks for it. Otherwise optional: a confidential client
 * proves itself with its secret at the token endpoint, and schedulers such as Cal.com send no
 * code_challenge. oidc-provider accepts only S256 (`plain` is refused), and holds a client that
 * sends a challenge to it at the exchange.
 */
export function pkceRequired(client: object & { clientAuthMethod?: string }): boolean {
  return client.clientAuthMethod === "none" || (client as Record<string, unknown>)[REQUIRE_PKCE_METADATA] === true;
}

/** The allowance of a client instance built from clientMetadata (custom properties keep their name). */
export function allowedScopesOf(client: object): string[] {
  const value = (client as Record<string, unknown>)[ALLOWED_SCOPES_METADATA];
  return typeof value === "string" ? value.split(" ").filter(Boolean) : [];
}
