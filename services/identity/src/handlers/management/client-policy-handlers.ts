import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound, requireUuid } from "@svc/platform";
import { ClientPolicyMode, type ManagementService } from "@svc/proto/svc/identity/v1/identity_pb";
import { ALLOW_LIST_MAX_CLIENTS, type OAuthClientPolicyRecord } from "../../oauth-stores.ts";
import type { ManagementAccess, ManagementDependencies } from "./management-context.ts";

type ClientPolicyHandlers = Pick<
  ServiceImpl<typeof ManagementService>,
  "getOAuthClientPolicy" | "setOAuthClientPolicy" | "allowOAuthClient" | "disallowOAuthClient"
>;

const policyMessage = (policy: OAuthClientPolicyRecord) => ({
  mode: policy.mode === "listed" ? ClientPolicyMode.LISTED : ClientPolicyMode.ALL,
  allowedClients: policy.allowedClients.map((client) => ({ ...client, addedAt: timestampFromDate(client.addedAt) })),
});

/**
 * Which other organizations' OAuth clients the members may authorize (admins): all, or only
 * those listed. Narrowing it ends the access tokens it no longer allows.
 */
export function clientPolicyHandlers({ clientPolicy, logger }: ManagementDependencies, { adminSession, revokeCached }: ManagementAccess): ClientPolicyHandlers {
  const policyOf = async (orgId: string) => {
    const policy = await clientPolicy.policyOf(orgId);
    if (!policy) throw notFound("Organization");
    return policy;
  };

  return {
    async getOAuthClientPolicy(_request, context) {
      const caller = await adminSession(context);
      return { policy: policyMessage(await policyOf(caller.orgId)) };
    },

    async setOAuthClientPolicy(request, context) {
      const caller = await adminSession(context);
      if (request.mode !== ClientPolicyMode.ALL && request.mode !== ClientPolicyMode.LISTED) throw invalidArgument(["policy must be all or listed"]);
      const mode = request.mode === ClientPolicyMode.LISTED ? "listed" : "all";
      const changed = await clientPolicy.setMode(caller.orgId, mode);
      if (!changed) throw notFound("Organization");
      await revokeCached(changed.revokedAccessTokens, "The policy is set");
      logger.info(
        { orgId: caller.orgId, userId: caller.userId, policy: mode, endedAccessTokens: changed.revokedAccessTokens.length },
        "OAuth client policy set",
      );
      return { policy: policyMessage(await policyOf(caller.orgId)) };
    },

    async allowOAuthClient(request, context) {
      const caller = await adminSession(context);
      const clientId = requireUuid("clientId", request.clientId);
      const outcome = await clientPolicy.allow(caller.orgId, clientId, caller.userId);
      if (outcome === "unknown-client") throw notFound("OAuth client");
      if (outcome === "own-client")
        throw invalidArgument(["clientId: clients registered by your organization are always allowed; list other organizations' clients"]);
      if (outcome === "list-full")
        throw new ConnectError(`The list holds at most ${ALLOW_LIST_MAX_CLIENTS} clients; remove one first`, Code.FailedPrecondition);
      logger.info({ orgId: caller.orgId, userId: caller.userId, clientId }, "OAuth client allowed for the organization's members");
      return { policy: policyMessage(await policyOf(caller.orgId)) };
    },

    async disallowOAuthClient(request, context) {
      const caller = await adminSession(context);
      const clientId = requireUuid("clientId", request.clientId);
      const removed = await clientPolicy.disallow(caller.orgId, clientId);
      if (!removed) throw notFound("Allowed OAuth client");
      await revokeCached(removed.revokedAccessTokens, "The client is removed from the list");
      logger.info(
        { orgId: caller.orgId, userId: caller.userId, clientId, endedAccessTokens: removed.revokedAccessTokens.length },
        "OAuth client removed from the organization's list",
      );
      return { policy: policyMessage(await policyOf(caller.orgId)) };
    },
  };
}
