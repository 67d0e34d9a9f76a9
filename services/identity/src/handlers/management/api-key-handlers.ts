import type { ServiceImpl } from "@connectrpc/connect";
import { notFound, requireUuid } from "@svc/platform";
import { identityLimits } from "@svc/platform/contract";
import type { ManagementService } from "@svc/proto/svc/identity/v1/identity_pb";
import { RequestCheck } from "../../admin/admin-requests.ts";
import { generateApiKey } from "../../credentials/api-key.ts";
import { toApiKeyMessage } from "../admin-service.ts";
import type { ManagementAccess, ManagementDependencies } from "./management-context.ts";

type ApiKeyHandlers = Pick<ServiceImpl<typeof ManagementService>, "listMyApiKeys" | "createMyApiKey" | "revokeMyApiKey">;

/** Every user's own API keys: list, create (the key is shown once), revoke. */
export function apiKeyHandlers({ accounts, logger }: ManagementDependencies, { session, revokeCached }: ManagementAccess): ApiKeyHandlers {
  return {
    async listMyApiKeys(_request, context) {
      const caller = await session(context);
      return { apiKeys: (await accounts.apiKeys.listOfUser(caller.userId)).map(toApiKeyMessage) };
    },

    async createMyApiKey(request, context) {
      const caller = await session(context);
      const check = new RequestCheck();
      const name = check.name("name", request.name, identityLimits.nameMaxLength);
      check.done();
      const { key, keyHash, displayPrefix } = generateApiKey();
      const record = await accounts.apiKeys.insert({ userId: caller.userId, orgId: caller.orgId, name, displayPrefix, keyHash });
      logger.info({ keyId: record.keyId, userId: caller.userId, orgId: caller.orgId }, "API key created in the dashboard");
      return { apiKey: toApiKeyMessage(record), key };
    },

    async revokeMyApiKey(request, context) {
      const caller = await session(context);
      const keyId = requireUuid("keyId", request.keyId);
      const revoked = await accounts.apiKeys.revoke(keyId, caller.userId);
      if (!revoked) throw notFound("API key");
      await revokeCached([revoked.keyHash], "The key is revoked");
      logger.info({ keyId, userId: caller.userId }, "API key revoked in the dashboard");
      return { apiKey: toApiKeyMessage((await accounts.apiKeys.findOfUser(caller.userId, keyId))!) };
    },
  };
}
