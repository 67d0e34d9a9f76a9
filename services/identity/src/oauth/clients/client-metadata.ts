import type { ClientMetadata } from "oidc-provider";
import type { OAuthClientRecord } from "../../db/oauth-clients.ts";

/** Custom client metadata: the scopes the client may request (space-separated). */
export const ALLOWED_SCOPES_METADATA = "allowed_scopes";

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
  };
}

/** The allowance of a client instance built from clientMetadata (custom properties keep their name). */
export function allowedScopesOf(client: object): string[] {
  const value = (client as Record<string, unknown>)[ALLOWED_SCOPES_METADATA];
  return typeof value === "string" ? value.split(" ").filter(Boolean) : [];
}
