import type { VerifiedCredential } from "@svc/platform";

export type { VerifiedCredential };

/**
 * Verifies one kind of token, recognised by its prefix. VerifyCredential picks the verifier with
 * the longest matching prefix, so `svc_oauth_` tokens (OAuth access tokens) never
 * reach the API-key verifier registered for `svc_`.
 */
export interface CredentialVerifier {
  prefix: string;
  /** The credential, or null when the token is unknown, expired or revoked. */
  verify(token: string, tokenHash: string): Promise<VerifiedCredential | null>;
}
