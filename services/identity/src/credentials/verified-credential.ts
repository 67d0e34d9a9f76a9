/** Who a token belongs to, as VerifyCredential answers it (and as the cache stores it). */
export interface VerifiedCredential {
  kind: "api_key" | "oauth";
  userId: string;
  orgId: string;
  /** Granted OAuth scopes; empty for API keys, which have full access. */
  scopes: string[];
  /** The OAuth client the token was issued to; empty for API keys. */
  clientId: string;
  /** The API key's id, to record its use; absent for OAuth tokens. */
  apiKeyId?: string;
  /** When the token expires by itself (epoch milliseconds): the cache never outlives it. */
  expiresAt?: number;
}

/**
 * Verifies one kind of token, recognised by its prefix. VerifyCredential picks the verifier with
 * the longest matching prefix, so `svc_oauth_` tokens (OAuth, added by the OAuth issue) never
 * reach the API-key verifier registered for `svc_`.
 */
export interface CredentialVerifier {
  prefix: string;
  /** The credential, or null when the token is unknown, expired or revoked. */
  verify(token: string, tokenHash: string): Promise<VerifiedCredential | null>;
}
