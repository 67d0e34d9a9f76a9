/** Who a token belongs to, as identity's VerifyCredential answers it (and as the cache stores it). */
export interface VerifiedCredential {
  kind: "api_key" | "oauth" | "session";
  userId: string;
  /** The user's role in their organization when verified (cached entries may be up to 60 s old). */
  role: "admin" | "member";
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
