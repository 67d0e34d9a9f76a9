import { randomUUID } from "node:crypto";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound, requireUuid, type Logger } from "@svc/platform";
import type { IdentityAdminService } from "@svc/proto/svc/identity/v1/identity_pb";
import type { CredentialVerification } from "../credentials/verify-credential.ts";
import type { OAuthClientStore } from "../oauth-stores.ts";
import { generateClientSecret, hashClientSecret } from "../oauth/clients/client-secret.ts";
import { checkClientFields, toOAuthClientMessage } from "../oauth/clients/client-fields.ts";
import type { RedirectUriPolicy } from "../oauth/clients/redirect-uri.ts";
import { UUID } from "@svc/platform/contract";

export type OAuthClientAdminImpl = Pick<ServiceImpl<typeof IdentityAdminService>, "createOAuthClient" | "listOAuthClients" | "deleteOAuthClient">;

/**
 * The OAuth-client RPCs of IdentityAdminService. The secret is generated here, returned once
 * and stored only as its SHA-256. Deleting a client ends every grant and token issued to it.
 */
export function oauthClientAdmin(deps: {
  clients: OAuthClientStore;
  credentials: CredentialVerification;
  redirectUriPolicy: RedirectUriPolicy;
  logger: Logger;
}): OAuthClientAdminImpl {
  const { clients, credentials, logger } = deps;
  return {
    async createOAuthClient(request) {
      const problems: string[] = [];
      if (!UUID.test(request.orgId)) problems.push("orgId must be a UUID");
      const { name, redirectUris, scopes } = checkClientFields(request, problems, deps.redirectUriPolicy);
      if (problems.length > 0) throw invalidArgument(problems);

      const clientSecret = generateClientSecret();
      const created = await clients.create({
        clientId: randomUUID(),
        orgId: request.orgId.toLowerCase(),
        name,
        redirectUris,
        scopes,
        secretHash: hashClientSecret(clientSecret),
        requirePkce: request.requirePkce,
      });
      if (!created) throw notFound("Organization");
      logger.info({ clientId: created.clientId, orgId: created.orgId }, "OAuth client created");
      return { client: toOAuthClientMessage(created), clientSecret };
    },

    async listOAuthClients(request) {
      const orgId = requireUuid("orgId", request.orgId);
      if (!(await clients.organizationExists(orgId))) throw notFound("Organization");
      return { clients: (await clients.listByOrg(orgId)).map(toOAuthClientMessage) };
    },

    async deleteOAuthClient(request) {
      const clientId = requireUuid("clientId", request.clientId);
      const revokedAccessTokens = await clients.delete(clientId);
      if (!revokedAccessTokens) throw notFound("OAuth client");
      try {
        await Promise.all(revokedAccessTokens.map((tokenHash) => credentials.revoke(tokenHash)));
      } catch (error) {
        // The tokens are gone from the database; a cached answer may accept one for up to a minute.
        logger.error({ err: error, clientId }, "OAuth client deleted but the verification cache could not be invalidated");
        throw new ConnectError("The client is deleted, but the verification cache could not be invalidated (it expires within 60 s)", Code.Unavailable);
      }
      logger.info({ clientId, revokedAccessTokens: revokedAccessTokens.length }, "OAuth client deleted");
      return { clientId };
    },
  };
}
