import type { ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound, requireUuid } from "@svc/platform";
import type { ManagementService } from "@svc/proto/svc/identity/v1/identity_pb";
import { generateClientSecret, hashClientSecret } from "../../oauth/clients/client-secret.ts";
import { checkClientFields, toOAuthClientMessage } from "../../oauth/clients/client-fields.ts";
import { SCOPE_DESCRIPTIONS } from "../../oauth/provider/scopes.ts";
import type { ManagementAccess, ManagementDependencies } from "./management-context.ts";

type OAuthClientHandlers = Pick<
  ServiceImpl<typeof ManagementService>,
  | "listOrganizationOAuthClients"
  | "createOrganizationOAuthClient"
  | "updateOrganizationOAuthClient"
  | "rotateOAuthClientSecret"
  | "deleteOrganizationOAuthClient"
>;

/** The organization's OAuth clients (admins): register, change, rotate the secret (shown once), delete. */
export function oauthClientHandlers(
  { clients, redirectUriPolicy, logger }: ManagementDependencies,
  { adminSession, revokeCached }: ManagementAccess,
): OAuthClientHandlers {
  return {
    async listOrganizationOAuthClients(_request, context) {
      const caller = await adminSession(context);
      return {
        clients: (await clients.listByOrg(caller.orgId)).map(toOAuthClientMessage),
        scopeCatalog: Object.entries(SCOPE_DESCRIPTIONS).map(([scope, description]) => ({ scope, description })),
      };
    },

    async createOrganizationOAuthClient(request, context) {
      const caller = await adminSession(context);
      const problems: string[] = [];
      const fields = checkClientFields(request, problems, redirectUriPolicy);
      if (problems.length > 0) throw invalidArgument(problems);
      const clientSecret = generateClientSecret();
      const created = await clients.create({
        clientId: crypto.randomUUID(),
        orgId: caller.orgId,
        ...fields,
        requirePkce: request.requirePkce,
        secretHash: hashClientSecret(clientSecret),
      });
      if (!created) throw notFound("Organization");
      logger.info({ clientId: created.clientId, orgId: caller.orgId, userId: caller.userId }, "OAuth client created in the dashboard");
      return { client: toOAuthClientMessage(created), clientSecret };
    },

    async updateOrganizationOAuthClient(request, context) {
      const caller = await adminSession(context);
      const clientId = requireUuid("clientId", request.clientId);
      const problems: string[] = [];
      const fields = checkClientFields(request, problems, redirectUriPolicy);
      if (problems.length > 0) throw invalidArgument(problems);
      const updated = await clients.updateInOrg(caller.orgId, clientId, { ...fields, requirePkce: request.requirePkce });
      if (!updated) throw notFound("OAuth client");
      await revokeCached(updated.revokedAccessTokens, "The client is updated");
      logger.info({ clientId, orgId: caller.orgId, endedAccessTokens: updated.revokedAccessTokens.length }, "OAuth client updated");
      return { client: toOAuthClientMessage(updated.client) };
    },

    async rotateOAuthClientSecret(request, context) {
      const caller = await adminSession(context);
      const clientId = requireUuid("clientId", request.clientId);
      const clientSecret = generateClientSecret();
      const rotated = await clients.rotateSecretInOrg(caller.orgId, clientId, hashClientSecret(clientSecret));
      if (!rotated) throw notFound("OAuth client");
      logger.info({ clientId, orgId: caller.orgId, userId: caller.userId }, "OAuth client secret rotated");
      return { client: toOAuthClientMessage(rotated), clientSecret };
    },

    async deleteOrganizationOAuthClient(request, context) {
      const caller = await adminSession(context);
      const clientId = requireUuid("clientId", request.clientId);
      const revokedAccessTokens = await clients.delete(clientId, caller.orgId);
      if (!revokedAccessTokens) throw notFound("OAuth client");
      await revokeCached(revokedAccessTokens, "The client is deleted");
      logger.info({ clientId, orgId: caller.orgId, revokedAccessTokens: revokedAccessTokens.length }, "OAuth client deleted in the dashboard");
      return { clientId };
    },
  };
}
