// What every ManagementService handler is given, and the access rules they share.
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { adminRoleRequired, type CredentialCache, type Logger } from "@svc/platform";
import type { AccountStores } from "../../account-stores.ts";
import type { CredentialVerification } from "../../credentials/verify-credential.ts";
import type { EmbedOriginStore } from "../../embedding/embed-origin-store.ts";
import type { OAuthArtifactStore, OAuthClientPolicyStore, OAuthClientStore } from "../../oauth-stores.ts";
import type { RedirectUriPolicy } from "../../oauth/clients/redirect-uri.ts";
import { requireSession } from "../../sessions/session-caller.ts";
import type { SessionRecord, SessionStore } from "../../sessions/session-store.ts";

export interface ManagementDependencies {
  accounts: AccountStores;
  sessions: SessionStore;
  credentials: CredentialVerification;
  /** The verification cache, to forget a user's cached credentials when their role changes. */
  cache: CredentialCache;
  clients: OAuthClientStore;
  artifacts: OAuthArtifactStore;
  /** Which other organizations' clients members may authorize (enforced by the authorization server). */
  clientPolicy: OAuthClientPolicyStore;
  /** Which sites may frame the organization's meetings (sent by the join page in frame-ancestors). */
  embedOrigins: EmbedOriginStore;
  redirectUriPolicy: RedirectUriPolicy;
  logger: Logger;
}

/** The callers the handlers accept, and how they end cached credentials. */
export interface ManagementAccess {
  /** The caller's dashboard session (UNAUTHENTICATED without one). */
  session(context: HandlerContext): Promise<SessionRecord>;
  /** The caller's dashboard session, which must be an admin's (PERMISSION_DENIED otherwise). */
  adminSession(context: HandlerContext): Promise<SessionRecord>;
  /** Marks revoked tokens in the verification cache; the database already refuses them. */
  revokeCached(tokenHashes: string[], what: string): Promise<void>;
}

export function managementAccess({ sessions, credentials, logger }: ManagementDependencies): ManagementAccess {
  const session = (context: HandlerContext) => requireSession(context, sessions, credentials);
  return {
    session,
    async adminSession(context) {
      const caller = await session(context);
      if (caller.role !== "admin") throw adminRoleRequired();
      return caller;
    },
    async revokeCached(tokenHashes, what) {
      try {
        await Promise.all(tokenHashes.map((tokenHash) => credentials.revoke(tokenHash)));
      } catch (error) {
        logger.error({ err: error, count: tokenHashes.length }, `${what}: the verification cache could not be invalidated`);
        throw new ConnectError(
          `${what}, but the verification cache could not be invalidated (it expires within 60 s); retry to invalidate it now`,
          Code.Unavailable,
        );
      }
    },
  };
}
