import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { notFound, type Logger } from "@svc/platform";
import { identityLimits } from "@svc/platform/contract";
import { Role, type IdentityAdminService } from "@svc/proto/svc/identity/v1/identity_pb";
import type { AccountStores, ApiKeyRecord } from "../account-stores.ts";
import { generateApiKey } from "../credentials/api-key.ts";
import { hashPassword } from "../credentials/password.ts";
import type { CredentialVerification } from "../credentials/verify-credential.ts";
import { RequestCheck } from "../admin/admin-requests.ts";

export interface AdminDependencies {
  accounts: AccountStores;
  credentials: CredentialVerification;
  logger: Logger;
}

/** The parts of IdentityAdminService this module implements; the OAuth-client RPCs are in oauth-client-admin.ts. */
export type AdminServiceImpl = Pick<
  ServiceImpl<typeof IdentityAdminService>,
  "createOrganization" | "createUser" | "createApiKey" | "listApiKeys" | "revokeApiKey"
>;

/**
 * Organizations, users and API keys. Callers are administrators (the request gate checked the
 * admin token), so these calls are not confined to one organization; every record they create
 * is, and an API key always belongs to its user's organization.
 */
export function adminService({ accounts, credentials, logger }: AdminDependencies): AdminServiceImpl {
  return {
    async createOrganization(request) {
      const check = new RequestCheck();
      const name = check.name("name", request.name, identityLimits.organizationNameMaxLength);
      check.done();
      const orgId = await accounts.organizations.create(name);
      logger.info({ orgId }, "organization created");
      return { orgId };
    },

    async createUser(request) {
      const check = new RequestCheck();
      const orgId = check.id("orgId", request.orgId);
      const email = check.email("email", request.email);
      const password = check.password("password", request.password);
      check.done();
      // The operator creates the people who run an organization: admins unless told otherwise.
      const role = request.role === Role.MEMBER ? "member" : "admin";
      const result = await accounts.users.insert({ orgId, email, passwordHash: await hashPassword(password), role });
      if ("problem" in result) {
        if (result.problem === "organization_not_found") throw notFound("Organization");
        throw new ConnectError("A user with this e-mail address already exists", Code.AlreadyExists);
      }
      logger.info({ orgId, userId: result.userId }, "user created");
      return { userId: result.userId };
    },

    async createApiKey(request) {
      const check = new RequestCheck();
      const userId = check.id("userId", request.userId);
      const name = check.name("name", request.name, identityLimits.nameMaxLength, "default");
      check.done();
      const user = await accounts.users.find(userId);
      if (!user) throw notFound("User");
      const { key, keyHash, displayPrefix } = generateApiKey();
      const record = await accounts.apiKeys.insert({ userId, orgId: user.orgId, name, displayPrefix, keyHash });
      logger.info({ keyId: record.keyId, userId, orgId: user.orgId }, "API key created");
      return { apiKey: toApiKeyMessage(record), key };
    },

    async listApiKeys(request) {
      const check = new RequestCheck();
      const userId = check.id("userId", request.userId);
      check.done();
      if (!(await accounts.users.find(userId))) throw notFound("User");
      return { apiKeys: (await accounts.apiKeys.listOfUser(userId)).map(toApiKeyMessage) };
    },

    async revokeApiKey(request) {
      const check = new RequestCheck();
      const keyId = check.id("keyId", request.keyId);
      check.done();
      const revoked = await accounts.apiKeys.revoke(keyId);
      if (!revoked) throw notFound("API key");
      try {
        await credentials.revoke(revoked.keyHash);
      } catch (error) {
        // The database says revoked, but a cached answer may still accept the key for up to a
        // minute: tell the administrator instead of pretending; repeating the call is safe.
        logger.error({ err: error, keyId }, "API key revoked but the verification cache could not be invalidated");
        throw new ConnectError(
          "The key is revoked, but the verification cache could not be invalidated (it expires within 60 s); retry to invalidate it now",
          Code.Unavailable,
        );
      }
      logger.info({ keyId }, "API key revoked");
      return { keyId };
    },
  };
}

export function toApiKeyMessage(record: ApiKeyRecord) {
  return {
    keyId: record.keyId,
    userId: record.userId,
    orgId: record.orgId,
    name: record.name,
    displayPrefix: record.displayPrefix,
    createdAt: timestampFromDate(record.createdAt),
    lastUsedAt: record.lastUsedAt ? timestampFromDate(record.lastUsedAt) : undefined,
    revokedAt: record.revokedAt ? timestampFromDate(record.revokedAt) : undefined,
  };
}
