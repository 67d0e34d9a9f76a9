import type { ServiceImpl } from "@connectrpc/connect";
import { readBearer, unauthenticated } from "@svc/platform";
import { CredentialKind, type IdentityService } from "@svc/proto/svc/identity/v1/identity_pb";
import type { CredentialVerification } from "../credentials/verify-credential.ts";
import { isSessionToken, type SessionStore } from "../sessions/session-store.ts";
import { roleMessage } from "./session-service.ts";

const kinds = { api_key: CredentialKind.API_KEY, oauth: CredentialKind.OAUTH, session: CredentialKind.SESSION } as const;

/**
 * IdentityService: VerifyCredential reads the caller's token from the `authorization` metadata.
 * A dashboard session is checked against its row on every call (never cached), together with
 * its CSRF token from the `x-csrf-token` metadata: the CSRF rule lives here, not in the gateway.
 */
export function identityService(credentials: CredentialVerification, sessions: SessionStore): ServiceImpl<typeof IdentityService> {
  return {
    async verifyCredential(_request, context) {
      const bearer = readBearer(context.requestHeader.get("authorization"));
      if (bearer.kind === "absent" || bearer.kind === "other-scheme" || bearer.kind === "empty") throw unauthenticated("Missing bearer token");
      // A token that cannot be one of ours is refused before any hashing or look-up.
      if (bearer.kind === "malformed") throw unauthenticated("Invalid, expired or revoked token");
      const token = bearer.token;
      if (isSessionToken(token)) {
        const session = await sessions.verify(token, context.requestHeader.get("x-csrf-token") ?? undefined);
        return { userId: session.userId, orgId: session.orgId, kind: CredentialKind.SESSION, role: roleMessage(session.role), scopes: [], clientId: "" };
      }
      const credential = await credentials.verify(token);
      return {
        userId: credential.userId,
        orgId: credential.orgId,
        kind: kinds[credential.kind],
        role: roleMessage(credential.role ?? "member"),
        scopes: credential.scopes,
        clientId: credential.clientId,
      };
    },
  };
}
