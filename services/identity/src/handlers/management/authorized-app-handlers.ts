import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound } from "@svc/platform";
import { GRANT_ID } from "@svc/platform/contract";
import type { ManagementService } from "@svc/proto/svc/identity/v1/identity_pb";
import type { ManagementAccess, ManagementDependencies } from "./management-context.ts";

type AuthorizedAppHandlers = Pick<ServiceImpl<typeof ManagementService>, "listAuthorizedApps" | "revokeAuthorizedApp">;

/** The apps a user has authorized with OAuth (their own): list, and revoke one with its tokens. */
export function authorizedAppHandlers({ artifacts, logger }: ManagementDependencies, { session, revokeCached }: ManagementAccess): AuthorizedAppHandlers {
  return {
    async listAuthorizedApps(_request, context) {
      const caller = await session(context);
      const grants = await artifacts.listGrantsOfUser(caller.userId);
      return { apps: grants.map((grant) => ({ ...grant, grantedAt: timestampFromDate(grant.grantedAt) })) };
    },

    async revokeAuthorizedApp(request, context) {
      const caller = await session(context);
      // oidc-provider's grant ids: base64url, 21-43 characters.
      if (!GRANT_ID.test(request.grantId)) throw invalidArgument(["grantId is not valid"]);
      if (!(await artifacts.isGrantOfUser(request.grantId, caller.userId))) throw notFound("Authorized app");
      const revokedAccessTokens = await artifacts.destroyGrant(request.grantId);
      await revokeCached(revokedAccessTokens, "The authorization is revoked");
      logger.info({ userId: caller.userId, revokedAccessTokens: revokedAccessTokens.length }, "authorized app revoked");
      return { grantId: request.grantId };
    },
  };
}
