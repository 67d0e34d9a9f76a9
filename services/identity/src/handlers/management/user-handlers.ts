import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { invalidArgument, notFound, requireUuid } from "@svc/platform";
import { Role, type ManagementService } from "@svc/proto/svc/identity/v1/identity_pb";
import { RequestCheck } from "../../admin/admin-requests.ts";
import { hashPassword } from "../../credentials/password.ts";
import type { UserRecord, UserRole } from "../../account-stores.ts";
import { roleMessage } from "../session-service.ts";
import type { ManagementAccess, ManagementDependencies } from "./management-context.ts";

type UserHandlers = Pick<ServiceImpl<typeof ManagementService>, "listOrganizationUsers" | "createOrganizationUser" | "updateOrganizationUser">;

const roleFrom = (role: Role, field = "role"): UserRole | undefined => {
  if (role === Role.ADMIN) return "admin";
  if (role === Role.MEMBER) return "member";
  if (role === Role.UNSPECIFIED) return undefined;
  throw invalidArgument([`${field} must be admin or member`]);
};

const userMessage = (user: UserRecord) => ({
  userId: user.userId,
  email: user.email,
  role: roleMessage(user.role),
  createdAt: timestampFromDate(user.createdAt),
  deactivatedAt: user.deactivatedAt ? timestampFromDate(user.deactivatedAt) : undefined,
});

/**
 * The organization's users (admins): list, add, change a role, deactivate. Deactivating ends the
 * user's sessions and revokes their credentials; a role change forgets their cached answers.
 */
export function userHandlers(deps: ManagementDependencies, { adminSession, revokeCached }: ManagementAccess): UserHandlers {
  const { accounts, sessions, artifacts, logger } = deps;
  return {
    async listOrganizationUsers(_request, context) {
      const caller = await adminSession(context);
      return { users: (await accounts.users.listOfOrg(caller.orgId)).map(userMessage) };
    },

    async createOrganizationUser(request, context) {
      const caller = await adminSession(context);
      const check = new RequestCheck();
      const email = check.email("email", request.email);
      const password = check.password("password", request.password);
      check.done();
      const role = roleFrom(request.role) ?? "member";
      const result = await accounts.users.insert({ orgId: caller.orgId, email, passwordHash: await hashPassword(password), role });
      if ("problem" in result) throw new ConnectError("A user with this e-mail address already exists", Code.AlreadyExists);
      logger.info({ orgId: caller.orgId, userId: result.userId, role, by: caller.userId }, "user created in the dashboard");
      return { user: userMessage((await accounts.users.findInOrg(caller.orgId, result.userId))!) };
    },

    async updateOrganizationUser(request, context) {
      const caller = await adminSession(context);
      const userId = requireUuid("userId", request.userId);
      const role = roleFrom(request.role);
      if (!role && request.deactivated === undefined) throw invalidArgument(["nothing to update: give role or deactivated"]);
      if (userId === caller.userId && (role === "member" || request.deactivated === true)) {
        // Keeps every organization with at least the admin who is acting: another admin may do it.
        throw new ConnectError("You cannot demote or deactivate yourself; ask another admin", Code.FailedPrecondition);
      }
      const updated = await accounts.users.updateInOrg(caller.orgId, userId, {
        ...(role ? { role } : {}),
        ...(request.deactivated === undefined ? {} : { deactivated: request.deactivated }),
      });
      if (!updated) throw notFound("User");
      const hashes = await accounts.users.cachedCredentialHashes(userId);
      if (updated.deactivatedAt) {
        // Sessions end now (the dashboard's and the OAuth sign-in's); keys and tokens are refused by
        // the database and, through the markers, by every cache.
        await sessions.endAllOf(userId);
        await artifacts.endBrowserSessionsOf(userId);
        await revokeCached(hashes, "The user is deactivated");
      } else {
        // A changed role must not be served from a cached answer; forgetting is enough (the database has the new role).
        await Promise.all(hashes.map((tokenHash) => deps.cache.forget(tokenHash))).catch((error: unknown) => {
          logger.warn({ err: error, userId }, "could not forget cached credentials after a role change (they expire within 60 s)");
        });
      }
      logger.info({ orgId: caller.orgId, userId, role: updated.role, deactivated: updated.deactivatedAt !== null, by: caller.userId }, "user updated");
      return { user: userMessage(updated) };
    },
  };
}
