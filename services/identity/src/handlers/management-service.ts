import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { adminRoleRequired, invalidArgument, notFound, requireUuid, type CredentialCache, type Logger } from "@svc/platform";
import { GRANT_ID, identityLimits } from "@svc/platform/contract";
import { ClientPolicyMode, Role, type ManagementService } from "@svc/proto/svc/identity/v1/identity_pb";
import type { AccountStores } from "../account-stores.ts";
import { RequestCheck } from "../admin/admin-requests.ts";
import { toApiKeyMessage } from "./admin-service.ts";
import { generateApiKey } from "../credentials/api-key.ts";
import { hashPassword } from "../credentials/password.ts";
import type { CredentialVerification } from "../credentials/verify-credential.ts";
import type { EmbedOriginStore } from "../embedding/embed-origin-store.ts";
import { checkEmbedOrigins } from "../embedding/embed-origins.ts";
import type { OAuthArtifactQueries } from "../db/oauth-artifacts.ts";
import type { OAuthClientQueries } from "../db/oauth-clients.ts";
import { ALLOW_LIST_MAX_CLIENTS, type OAuthClientPolicyQueries, type OAuthClientPolicyRecord } from "../db/oauth-client-policy.ts";
import type { SessionRecord } from "../db/sessions.ts";
import type { UserRecord, UserRole } from "../db/users.ts";
import { generateClientSecret, hashClientSecret } from "../oauth/clients/client-secret.ts";
import { checkClientFields, toOAuthClientMessage } from "../oauth/clients/client-fields.ts";
import type { RedirectUriPolicy } from "../oauth/clients/redirect-uri.ts";
import { SCOPE_DESCRIPTIONS } from "../oauth/provider/scopes.ts";
import { requireSession } from "../sessions/session-caller.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import { roleMessage } from "./session-service.ts";

export interface ManagementDependencies {
  accounts: AccountStores;
  sessions: SessionStore;
  credentials: CredentialVerification;
  /** The verification cache, to forget a user's cached credentials when their role changes. */
  cache: CredentialCache;
  clients: OAuthClientQueries;
  artifacts: OAuthArtifactQueries;
  /** Which other organizations' clients members may authorize (enforced by the authorization server). */
  clientPolicy: OAuthClientPolicyQueries;
  /** Which sites may frame the organization's meetings (sent by the join page in frame-ancestors). */
  embedOrigins: EmbedOriginStore;
  redirectUriPolicy: RedirectUriPolicy;
  logger: Logger;
}

// oidc-provider's grant ids: base64url, 21-43 characters.

const idOrRefuse = requireUuid;

const roleFrom = (role: Role, field = "role"): UserRole | undefined => {
  if (role === Role.ADMIN) return "admin";
  if (role === Role.MEMBER) return "member";
  if (role === Role.UNSPECIFIED) return undefined;
  throw invalidArgument([`${field} must be admin or member`]);
};

const policyMessage = (policy: OAuthClientPolicyRecord) => ({
  mode: policy.mode === "listed" ? ClientPolicyMode.LISTED : ClientPolicyMode.ALL,
  allowedClients: policy.allowedClients.map((client) => ({ ...client, addedAt: timestampFromDate(client.addedAt) })),
});

const userMessage = (user: UserRecord) => ({
  userId: user.userId,
  email: user.email,
  role: roleMessage(user.role),
  createdAt: timestampFromDate(user.createdAt),
  deactivatedAt: user.deactivatedAt ? timestampFromDate(user.deactivatedAt) : undefined,
});

/**
 * svc.identity.v1.ManagementService: what a person manages in the dashboard, always with a
 * dashboard session, always inside the session's organization (another organization's id gets
 * the same NOT_FOUND as an unknown one). Every user manages their own API keys and authorized
 * apps; OAuth clients, users, the client policy and the sites that may embed meetings are the admins'.
 */
export function managementService(deps: ManagementDependencies): ServiceImpl<typeof ManagementService> {
  const { accounts, sessions, credentials, clients, artifacts, clientPolicy, embedOrigins, logger } = deps;
  const session = (context: HandlerContext) => requireSession(context, sessions, credentials);
  const adminSession = async (context: HandlerContext) => {
    const caller = await session(context);
    if (caller.role !== "admin") throw adminRoleRequired();
    return caller;
  };
  const policyOf = async (orgId: string) => {
    const policy = await clientPolicy.policyOf(orgId);
    if (!policy) throw notFound("Organization");
    return policy;
  };
  /** Marks revoked tokens in the verification cache; the database already refuses them. */
  const revokeCached = async (tokenHashes: string[], what: string) => {
    try {
      await Promise.all(tokenHashes.map((tokenHash) => credentials.revoke(tokenHash)));
    } catch (error) {
      logger.error({ err: error, count: tokenHashes.length }, `${what}: the verification cache could not be invalidated`);
      throw new ConnectError(
        `${what}, but the verification cache could not be invalidated (it expires within 60 s); retry to invalidate it now`,
        Code.Unavailable,
      );
    }
  };

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
      const keyId = idOrRefuse("keyId", request.keyId);
      const revoked = await accounts.apiKeys.revoke(keyId, caller.userId);
      if (!revoked) throw notFound("API key");
      await revokeCached([revoked.keyHash], "The key is revoked");
      logger.info({ keyId, userId: caller.userId }, "API key revoked in the dashboard");
      return { apiKey: toApiKeyMessage((await accounts.apiKeys.findOfUser(caller.userId, keyId))!) };
    },

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
      const fields = checkClientFields(request, problems, deps.redirectUriPolicy);
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
      const clientId = idOrRefuse("clientId", request.clientId);
      const problems: string[] = [];
      const fields = checkClientFields(request, problems, deps.redirectUriPolicy);
      if (problems.length > 0) throw invalidArgument(problems);
      const updated = await clients.updateInOrg(caller.orgId, clientId, { ...fields, requirePkce: request.requirePkce });
      if (!updated) throw notFound("OAuth client");
      await revokeCached(updated.revokedAccessTokens, "The client is updated");
      logger.info({ clientId, orgId: caller.orgId, endedAccessTokens: updated.revokedAccessTokens.length }, "OAuth client updated");
      return { client: toOAuthClientMessage(updated.client) };
    },

    async rotateOAuthClientSecret(request, context) {
      const caller = await adminSession(context);
      const clientId = idOrRefuse("clientId", request.clientId);
      const clientSecret = generateClientSecret();
      const rotated = await clients.rotateSecretInOrg(caller.orgId, clientId, hashClientSecret(clientSecret));
      if (!rotated) throw notFound("OAuth client");
      logger.info({ clientId, orgId: caller.orgId, userId: caller.userId }, "OAuth client secret rotated");
      return { client: toOAuthClientMessage(rotated), clientSecret };
    },

    async deleteOrganizationOAuthClient(request, context) {
      const caller = await adminSession(context);
      const clientId = idOrRefuse("clientId", request.clientId);
      const revokedAccessTokens = await clients.delete(clientId, caller.orgId);
      if (!revokedAccessTokens) throw notFound("OAuth client");
      await revokeCached(revokedAccessTokens, "The client is deleted");
      logger.info({ clientId, orgId: caller.orgId, revokedAccessTokens: revokedAccessTokens.length }, "OAuth client deleted in the dashboard");
      return { clientId };
    },

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
      const userId = idOrRefuse("userId", request.userId);
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

    async listAuthorizedApps(_request, context) {
      const caller = await session(context);
      const grants = await artifacts.listGrantsOfUser(caller.userId);
      return { apps: grants.map((grant) => ({ ...grant, grantedAt: timestampFromDate(grant.grantedAt) })) };
    },

    async revokeAuthorizedApp(request, context) {
      const caller: SessionRecord = await session(context);
      if (!GRANT_ID.test(request.grantId)) throw invalidArgument(["grantId is not valid"]);
      if (!(await artifacts.isGrantOfUser(request.grantId, caller.userId))) throw notFound("Authorized app");
      const revokedAccessTokens = await artifacts.destroyGrant(request.grantId);
      await revokeCached(revokedAccessTokens, "The authorization is revoked");
      logger.info({ userId: caller.userId, revokedAccessTokens: revokedAccessTokens.length }, "authorized app revoked");
      return { grantId: request.grantId };
    },

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
      const clientId = idOrRefuse("clientId", request.clientId);
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
      const clientId = idOrRefuse("clientId", request.clientId);
      const removed = await clientPolicy.disallow(caller.orgId, clientId);
      if (!removed) throw notFound("Allowed OAuth client");
      await revokeCached(removed.revokedAccessTokens, "The client is removed from the list");
      logger.info(
        { orgId: caller.orgId, userId: caller.userId, clientId, endedAccessTokens: removed.revokedAccessTokens.length },
        "OAuth client removed from the organization's list",
      );
      return { policy: policyMessage(await policyOf(caller.orgId)) };
    },

    async getMeetingEmbedding(_request, context) {
      const caller = await adminSession(context);
      const allowedOrigins = await embedOrigins.originsOf(caller.orgId);
      if (!allowedOrigins) throw notFound("Organization");
      return { embedding: { allowedOrigins } };
    },

    async setMeetingEmbedding(request, context) {
      const caller = await adminSession(context);
      const checked = checkEmbedOrigins(request.allowedOrigins);
      if ("problems" in checked) throw invalidArgument(checked.problems);
      if (!(await embedOrigins.replace(caller.orgId, checked.origins))) throw notFound("Organization");
      // Origins are public (they are sent in the join page's header), so they may be logged.
      logger.info({ orgId: caller.orgId, userId: caller.userId, origins: checked.origins }, "meeting embed origins set");
      return { embedding: { allowedOrigins: checked.origins } };
    },
  };
}
