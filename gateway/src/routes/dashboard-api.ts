import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { Router, type Response } from "express";
import type { z } from "zod";
import { errorMetadata } from "@svc/platform/contract";
import {
  ClientPolicyMode,
  ManagementService,
  Role,
  SessionService,
  type ApiKey,
  type NewSession,
  type OAuthClient,
  type OAuthClientPolicy,
  type OrganizationUser,
  type SessionUser,
} from "@svc/proto/svc/identity/v1/identity_pb";
import * as contract from "../contract/dashboard.ts";
import { serviceTransport } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";
import { HttpError, fromConnectError } from "../http/errors.ts";
import { jsonBody } from "../http/json-body.ts";
import { parseJsonBody } from "../http/parse-request.ts";
import { isoOrNull, isoTime } from "./proto-to-json.ts";
import type { SessionCookies } from "../http/session-cookie.ts";

export type DashboardClients = {
  sessions: ReturnType<typeof createClient<typeof SessionService>>;
  management: ReturnType<typeof createClient<typeof ManagementService>>;
};

export function createDashboardClients(identityUrl: string): DashboardClients {
  const transport = serviceTransport(identityUrl);
  return { sessions: createClient(SessionService, transport), management: createClient(ManagementService, transport) };
}

const roleName = (role: Role) => (role === Role.ADMIN ? ("admin" as const) : ("member" as const));
const roleValue = (role: "admin" | "member" | undefined) => (role === undefined ? Role.UNSPECIFIED : role === "admin" ? Role.ADMIN : Role.MEMBER);

const userResource = (user: SessionUser | undefined): z.input<typeof contract.SessionUser> => ({
  userId: user?.userId ?? "",
  orgId: user?.orgId ?? "",
  organizationName: user?.organizationName ?? "",
  email: user?.email ?? "",
  role: roleName(user?.role ?? Role.UNSPECIFIED),
});

const apiKeyResource = (key: ApiKey): z.input<typeof contract.ApiKey> => ({
  keyId: key.keyId,
  name: key.name,
  prefix: key.displayPrefix,
  createdAt: isoTime(key.createdAt),
  lastUsedAt: isoOrNull(key.lastUsedAt),
  revokedAt: isoOrNull(key.revokedAt),
});

const clientResource = (client: OAuthClient): z.input<typeof contract.OAuthClient> => ({
  clientId: client.clientId,
  name: client.name,
  redirectUris: client.redirectUris,
  scopes: client.scopes,
  requirePkce: client.requirePkce,
  createdAt: isoTime(client.createdAt),
});

const policyResource = (policy: OAuthClientPolicy | undefined): z.input<typeof contract.OAuthClientPolicy> => ({
  policy: policy?.mode === ClientPolicyMode.LISTED ? "listed" : "all",
  allowedClients: (policy?.allowedClients ?? []).map((client) => ({
    clientId: client.clientId,
    name: client.name,
    organizationName: client.organizationName,
    addedAt: isoTime(client.addedAt),
  })),
});
const policyMode = (policy: "all" | "listed" | undefined) =>
  policy === undefined ? ClientPolicyMode.UNSPECIFIED : policy === "listed" ? ClientPolicyMode.LISTED : ClientPolicyMode.ALL;

const orgUserResource = (user: OrganizationUser): z.input<typeof contract.User> => ({
  userId: user.userId,
  email: user.email,
  role: roleName(user.role),
  createdAt: isoTime(user.createdAt),
  deactivated: user.deactivatedAt !== undefined,
  deactivatedAt: isoOrNull(user.deactivatedAt),
});

/**
 * Sign-in and sign-up: public (no credential), JSON bodies. A successful one sets the session
 * and CSRF cookies; everything about the session (token, lifetimes, throttling) is identity's.
 */
export function publicSessionRoutes(clients: DashboardClients, cookies: SessionCookies): Router {
  const router = Router();
  const started = (res: Response, status: number, session: NewSession | undefined) => {
    cookies.set(res, { sessionToken: session!.sessionToken, csrfToken: session!.csrfToken, expiresAt: timestampDate(session!.expiresAt!) });
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof contract.SessionStarted> = {
      user: userResource(session!.user),
      expiresAt: isoTime(session!.expiresAt),
      idleTimeoutSeconds: session!.idleTimeoutSeconds,
      csrfToken: session!.csrfToken,
    };
    res.status(status).json(answer);
  };
  // The throttle's Retry-After travels as metadata; the one error mapping turns the rest into JSON.
  const throttled = (error: unknown) => {
    const connectError = ConnectError.from(error);
    if (connectError.code !== Code.ResourceExhausted) throw error;
    const httpError = fromConnectError(connectError);
    throw new HttpError(429, httpError.message, { "Retry-After": connectError.metadata.get(errorMetadata.retryAfter) ?? "60" });
  };

  router.post("/session", ...jsonBody, async (req, res) => {
    const { email, password } = parseJsonBody(contract.SignInRequest, req.body);
    const { session } = await clients.sessions.signIn({ email: email ?? "", password: password ?? "", clientAddress: req.ip ?? "" }).catch(throttled);
    started(res, 200, session);
  });

  router.post("/signup", ...jsonBody, async (req, res) => {
    const { organizationName, email, password } = parseJsonBody(contract.SignUpRequest, req.body);
    const { session } = await clients.sessions.signUp({
      organizationName: organizationName ?? "",
      email: email ?? "",
      password: password ?? "",
      clientAddress: req.ip ?? "",
    });
    started(res, 201, session);
  });
  return router;
}

/**
 * The dashboard's management API (mounted on the authenticated /api/v1 router). Identity
 * authorizes every call: only a dashboard session is accepted, admin-only operations check the
 * role, and everything is confined to the session's organization.
 */
export function managementRoutes(clients: DashboardClients, cookies: SessionCookies): Router {
  const router = Router();
  const options = (res: Response) => ({ headers: forwardedCredential(res.locals) });
  /** Answers `body`, typed by its contract schema, never cached. */
  const send = <T extends z.ZodType>(res: Response, _schema: T, body: z.input<T>, status = 200) =>
    res.set("Cache-Control", "no-store").status(status).json(body);

  router.get("/session", async (_req, res) => {
    const { user, expiresAt } = await clients.sessions.getSession({}, options(res));
    send(res, contract.SessionInfo, { user: userResource(user), expiresAt: isoTime(expiresAt) });
  });
  router.delete("/session", async (_req, res) => {
    await clients.sessions.signOut({}, options(res));
    cookies.clear(res);
    send(res, contract.SignedOut, { signedOut: true });
  });

  router.get("/api-keys", async (_req, res) => {
    const { apiKeys } = await clients.management.listMyApiKeys({}, options(res));
    send(res, contract.ApiKeyList, { apiKeys: apiKeys.map(apiKeyResource) });
  });
  router.post("/api-keys", async (req, res) => {
    const { name } = parseJsonBody(contract.CreateApiKeyRequest, req.body);
    const { apiKey, key } = await clients.management.createMyApiKey({ name: name ?? "" }, options(res));
    send(res, contract.CreatedApiKey, { ...apiKeyResource(apiKey!), key }, 201);
  });
  router.post("/api-keys/:keyId/revoke", async (req, res) => {
    const { apiKey } = await clients.management.revokeMyApiKey({ keyId: req.params.keyId }, options(res));
    send(res, contract.ApiKey, apiKeyResource(apiKey!));
  });

  router.get("/oauth-clients", async (_req, res) => {
    const { clients: list, scopeCatalog } = await clients.management.listOrganizationOAuthClients({}, options(res));
    send(res, contract.OAuthClientList, {
      clients: list.map(clientResource),
      scopeCatalog: scopeCatalog.map(({ scope, description }) => ({ scope, description })),
    });
  });
  router.post("/oauth-clients", async (req, res) => {
    const body = parseJsonBody(contract.OAuthClientFields, req.body);
    const created = await clients.management.createOrganizationOAuthClient(
      { name: body.name ?? "", redirectUris: body.redirectUris ?? [], scopes: body.scopes ?? [], requirePkce: body.requirePkce ?? false },
      options(res),
    );
    send(res, contract.CreatedOAuthClient, { ...clientResource(created.client!), clientSecret: created.clientSecret }, 201);
  });
  router.put("/oauth-clients/:clientId", async (req, res) => {
    const body = parseJsonBody(contract.OAuthClientFields, req.body);
    const { client } = await clients.management.updateOrganizationOAuthClient(
      {
        clientId: req.params.clientId,
        name: body.name ?? "",
        redirectUris: body.redirectUris ?? [],
        scopes: body.scopes ?? [],
        requirePkce: body.requirePkce ?? false,
      },
      options(res),
    );
    send(res, contract.OAuthClient, clientResource(client!));
  });
  router.post("/oauth-clients/:clientId/secret", async (req, res) => {
    const rotated = await clients.management.rotateOAuthClientSecret({ clientId: req.params.clientId }, options(res));
    send(res, contract.CreatedOAuthClient, { ...clientResource(rotated.client!), clientSecret: rotated.clientSecret });
  });
  router.delete("/oauth-clients/:clientId", async (req, res) => {
    const { clientId } = await clients.management.deleteOrganizationOAuthClient({ clientId: req.params.clientId }, options(res));
    send(res, contract.DeletedOAuthClient, { clientId, deleted: true });
  });

  router.get("/users", async (_req, res) => {
    const { users } = await clients.management.listOrganizationUsers({}, options(res));
    send(res, contract.UserList, { users: users.map(orgUserResource) });
  });
  router.post("/users", async (req, res) => {
    const body = parseJsonBody(contract.CreateUserRequest, req.body);
    const { user } = await clients.management.createOrganizationUser(
      { email: body.email ?? "", password: body.password ?? "", role: roleValue(body.role) },
      options(res),
    );
    send(res, contract.User, orgUserResource(user!), 201);
  });
  router.patch("/users/:userId", async (req, res) => {
    const body = parseJsonBody(contract.UpdateUserRequest, req.body);
    const { user } = await clients.management.updateOrganizationUser(
      { userId: req.params.userId, role: roleValue(body.role), ...(body.deactivated === undefined ? {} : { deactivated: body.deactivated }) },
      options(res),
    );
    send(res, contract.User, orgUserResource(user!));
  });

  router.get("/authorized-apps", async (_req, res) => {
    const { apps } = await clients.management.listAuthorizedApps({}, options(res));
    send(res, contract.AuthorizedAppList, {
      apps: apps.map((app) => ({ grantId: app.grantId, clientId: app.clientId, name: app.clientName, scopes: app.scopes, grantedAt: isoTime(app.grantedAt) })),
    });
  });
  router.delete("/authorized-apps/:grantId", async (req, res) => {
    const { grantId } = await clients.management.revokeAuthorizedApp({ grantId: req.params.grantId }, options(res));
    send(res, contract.RevokedAuthorizedApp, { grantId, revoked: true });
  });

  router.get("/oauth-client-policy", async (_req, res) => {
    const { policy } = await clients.management.getOAuthClientPolicy({}, options(res));
    send(res, contract.OAuthClientPolicy, policyResource(policy));
  });
  router.put("/oauth-client-policy", async (req, res) => {
    const body = parseJsonBody(contract.SetOAuthClientPolicyRequest, req.body);
    const { policy } = await clients.management.setOAuthClientPolicy({ mode: policyMode(body.policy) }, options(res));
    send(res, contract.OAuthClientPolicy, policyResource(policy));
  });
  router.put("/oauth-client-policy/allowed-clients/:clientId", async (req, res) => {
    const { policy } = await clients.management.allowOAuthClient({ clientId: req.params.clientId }, options(res));
    send(res, contract.OAuthClientPolicy, policyResource(policy));
  });
  router.delete("/oauth-client-policy/allowed-clients/:clientId", async (req, res) => {
    const { policy } = await clients.management.disallowOAuthClient({ clientId: req.params.clientId }, options(res));
    send(res, contract.OAuthClientPolicy, policyResource(policy));
  });

  router.get("/meeting-embedding", async (_req, res) => {
    const { embedding } = await clients.management.getMeetingEmbedding({}, options(res));
    send(res, contract.MeetingEmbedding, { allowedOrigins: embedding?.allowedOrigins ?? [] });
  });
  router.put("/meeting-embedding", async (req, res) => {
    const body = parseJsonBody(contract.SetMeetingEmbeddingRequest, req.body);
    const { embedding } = await clients.management.setMeetingEmbedding({ allowedOrigins: body.allowedOrigins }, options(res));
    send(res, contract.MeetingEmbedding, { allowedOrigins: embedding?.allowedOrigins ?? [] });
  });
  return router;
}
