import type { ServiceImpl } from "@connectrpc/connect";
import { unauthenticated } from "@svc/platform";
import { CredentialKind, type IdentityService } from "@svc/proto/svc/identity/v1/identity_pb";
import type { CredentialVerification } from "./credentials/verify-credential.ts";

// No token of ours is longer; a longer header is refused before any hashing or look-up.
const MAX_TOKEN_LENGTH = 512;

/** IdentityService: VerifyCredential reads the caller's token from the `authorization` metadata. */
export function identityService(credentials: CredentialVerification): ServiceImpl<typeof IdentityService> {
  return {
    async verifyCredential(_request, context) {
      const match = /^Bearer +(\S+) *$/i.exec(context.requestHeader.get("authorization") ?? "");
      if (!match) throw unauthenticated("Missing bearer token");
      const token = match[1]!;
      if (token.length > MAX_TOKEN_LENGTH) throw unauthenticated("Invalid, expired or revoked token");
      const credential = await credentials.verify(token);
      return {
        userId: credential.userId,
        orgId: credential.orgId,
        kind: credential.kind === "oauth" ? CredentialKind.OAUTH : CredentialKind.API_KEY,
        scopes: credential.scopes,
        clientId: credential.clientId,
      };
    },
  };
}
