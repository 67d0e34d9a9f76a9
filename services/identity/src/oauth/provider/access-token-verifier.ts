import type { UserAuthorizationStore } from "../../oauth-stores.ts";
import type { CredentialVerifier } from "../../credentials/credential-verifier.ts";
import { ACCESS_TOKEN_PREFIX } from "./provider-configuration.ts";

/** Opaque access tokens: the prefix and 256 random bits in base64url (43 characters). */
const ACCESS_TOKEN_SHAPE = /^svc_oauth_[A-Za-z0-9_-]{43}$/;

/**
 * VerifyCredential for `svc_oauth_` access tokens: the token is looked up by its SHA-256 and
 * counts while it is unexpired and its grant, client and user still exist (revocation deletes
 * the rows and marks the token revoked in the verification cache).
 */
export function oauthAccessTokenVerifier(artifacts: UserAuthorizationStore): CredentialVerifier {
  return {
    prefix: ACCESS_TOKEN_PREFIX,
    async verify(token, tokenHash) {
      if (!ACCESS_TOKEN_SHAPE.test(token)) return null;
      const record = await artifacts.findAccessToken(tokenHash);
      if (!record) return null;
      return {
        kind: "oauth",
        userId: record.userId,
        orgId: record.orgId,
        role: record.role,
        scopes: record.scope.split(" ").filter(Boolean),
        clientId: record.clientId,
        expiresAt: record.expiresAt.getTime(),
      };
    },
  };
}
