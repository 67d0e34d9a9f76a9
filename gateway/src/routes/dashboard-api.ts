import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { Router, type Request, type Response } from "express";
import { z } from "zod";
import { internalTransport } from "@svc/platform";
import {
  ManagementService,
  Role,
  SessionService,
  type ApiKey,
  type NewSession,
  type OAuthClient,
  type OrganizationUser,
  type SessionUser,
} from "@svc/proto/svc/identity/v1/identity_pb";
import { forwardedCredential } from "../http/bearer.ts";
import { HttpError, fromConnectError } from "../http/errors.ts";
import { jsonBody } from "../http/json-body.ts";
import type { SessionCookies } from "../http/session-cookie.ts";

const CALL_TIMEOUT_MS = 10_000;

export type DashboardClients = {
  sessions: ReturnType<typeof createClient<typeof SessionService>>;
  management: ReturnType<typeof createClient<typeof ManagementService>>;
};

export function createDashboardClients(identityUrl: string): DashboardClients {
  const transport = internalTransport(identityUrl);
  return { sessions: createClient(SessionService, transport), management: createClient(ManagementService, transport) };
}

const iso = (timestamp: Timestamp | undefined) => (timestamp ? timestampDate(timestamp).toISOString() : null);
const roleName = (role: Role) => (role === Role.ADMIN ? "admin" : "member");
const roleValue = (role: "admin" | "member" | undefined) => (role === undefined ? Role.UNSPECIFIED : role === "admin" ? Role.ADMIN : Role.MEMBER);

const text = (field: string) => z.string({ error: `${field} must be a string` }).optional();
const textList = (field: string) => z.array(z.string({ error: `${field} must be an array of strings` }), { error: `${field} must be an array of strings` }).optional();

/** JSON shapes only; every rule about the values lives in identity. */
const bodies = {
  signIn: z.object({ email: text("email"), password: text("password") }),
  signUp: z.object({ organizationName: text("organizationName"), email: text("email"), password: text("password") }),
  apiKey: z.object({ name: text("name") }),
  oauthClient: z.object({ name: text("name"), redirectUris: textList("redirectUris"), scopes: textList("scopes") }),
  newUser: z.object({ email: text("email"), password: text("password"), role: z.enum(["admin", "member"], { error: "role must be admin or member" }).optional() }),
  userChange: z.object({
    role: z.enum(["admin", "member"], { error: "role must be admin or member" }).optional(),
    deactivated: z.boolean({ error: "deactivated must be true or false" }).optional(),
  }),
};

function parseBody<T>(req: Request, schema: z.ZodType<T>): T {
  const body: unknown = req.body ?? {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, "Request body must be a JSON object");
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, [...new Set(parsed.error.issues.map((issue) => issue.message))].join("; "));
  return parsed.data;
}

const userResource = (user: SessionUser | undefined) => ({
  userId: user?.userId ?? "",
  orgId: user?.orgId ?? "",
  organizationName: user?.organizationName ?? "",
  email: user?.email ?? "",
  role: roleName(user?.role ?? Role.UNSPECIFIED),
});

const apiKeyResource = (key: ApiKey) => ({
  keyId: key.keyId,
  name: key.name,
  prefix: key.displayPrefix,
  createdAt: iso(key.createdAt),
  lastUsedAt: iso(key.lastUsedAt),
  revokedAt: iso(key.revokedAt),
});

const clientResource = (client: OAuthClient) => ({
  clientId: client.clientId,
  name: client.name,
  redirectUris: client.redirectUris,
  scopes: client.scopes,
  createdAt: iso(client.createdAt),
});

const orgUserResource = (user: OrganizationUser) => ({
  userId: user.userId,
  email: user.email,
  role: roleName(user.role),
  createdAt: iso(user.createdAt),
  deactivated: user.deactivatedAt !== undefined,
  deactivatedAt: iso(user.deactivatedAt),
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
    res.status(status).json({
      user: userResource(session!.user),
      expiresAt: iso(session!.expiresAt),
      idleTimeoutSeconds: session!.idleTimeoutSeconds,
      csrfToken: session!.csrfToken,
    });
  };
  // The throttle's Retry-After travels as metadata; the one error mapping turns the rest into JSON.
  const throttled = (error: unknown) => {
    const connectError = ConnectError.from(error);
    if (connectError.code !== Code.ResourceExhausted) throw error;
    const httpError = fromConnectError(connectError);
    throw new HttpError(429, httpError.message, { "Retry-After": connectError.metadata.get("retry-after") ?? "60" });
  };

  router.post("/session", ...jsonBody, async (req, res) => {
    const { email, password } = parseBody(req, bodies.signIn);
    const { session } = await clients.sessions
      .signIn({ email: email ?? "", password: password ?? "", clientAddress: req.ip ?? "" }, { timeoutMs: CALL_TIMEOUT_MS })
      .catch(throttled);
    started(res, 200, session);
  });

  router.post("/signup", ...jsonBody, async (req, res) => {
    const { organizationName, email, password } = parseBody(req, bodies.signUp);
    const { session } = await clients.sessions.signUp(
      { organizationName: organizationName ?? "", email: email ?? "", password: password ?? "", clientAddress: req.ip ?? "" },
      { timeoutMs: CALL_TIMEOUT_MS },
    );
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
  const options = (res: Response) => ({ headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS });
  const noStore = (res: Response) => res.set("Cache-Control", "no-store");

  router.get("/session", async (_req, res) => {
    const { user, expiresAt } = await clients.sessions.getSession({}, options(res));
    noStore(res).json({ user: userResource(user), expiresAt: iso(expiresAt) });
  });
  router.delete("/session", async (_req, res) => {
    await clients.sessions.signOut({}, options(res));
    cookies.clear(res);
    noStore(res).json({ signedOut: true });
  });

  router.get("/api-keys", async (_req, res) => {
    const { apiKeys } = await clients.management.listMyApiKeys({}, options(res));
    noStore(res).json({ apiKeys: apiKeys.map(apiKeyResource) });
  });
  router.post("/api-keys", async (req, res) => {
    const { name } = parseBody(req, bodies.apiKey);
    const { apiKey, key } = await clients.management.createMyApiKey({ name: name ?? "" }, options(res));
    noStore(res).status(201).json({ ...apiKeyResource(apiKey!), key });
  });
  router.post("/api-keys/:keyId/revoke", async (req, res) => {
    const { apiKey } = await clients.management.revokeMyApiKey({ keyId: req.params.keyId }, options(res));
    noStore(res).json(apiKeyResource(apiKey!));
  });

  router.get("/oauth-clients", async (_req, res) => {
    const { clients: list, scopeCatalog } = await clients.management.listOrganizationOAuthClients({}, options(res));
    noStore(res).json({ clients: list.map(clientResource), scopeCatalog: scopeCatalog.map(({ scope, description }) => ({ scope, description })) });
  });
  router.post("/oauth-clients", async (req, res) => {
    const body = parseBody(req, bodies.oauthClient);
    const created = await clients.management.createOrganizationOAuthClient(
      { name: body.name ?? "", redirectUris: body.redirectUris ?? [], scopes: body.scopes ?? [] },
      options(res),
    );
    noStore(res).status(201).json({ ...clientResource(created.client!), clientSecret: created.clientSecret });
  });
  router.put("/oauth-clients/:clientId", async (req, res) => {
    const body = parseBody(req, bodies.oauthClient);
    const { client } = await clients.management.updateOrganizationOAuthClient(
      { clientId: req.params.clientId, name: body.name ?? "", redirectUris: body.redirectUris ?? [], scopes: body.scopes ?? [] },
      options(res),
    );
    noStore(res).json(clientResource(client!));
  });
  router.post("/oauth-clients/:clientId/secret", async (req, res) => {
    const rotated = await clients.management.rotateOAuthClientSecret({ clientId: req.params.clientId }, options(res));
    noStore(res).json({ ...clientResource(rotated.client!), clientSecret: rotated.clientSecret });
  });
  router.delete("/oauth-clients/:clientId", async (req, res) => {
    const { clientId } = await clients.management.deleteOrganizationOAuthClient({ clientId: req.params.clientId }, options(res));
    noStore(res).json({ clientId, deleted: true });
  });

  router.get("/users", async (_req, res) => {
    const { users } = await clients.management.listOrganizationUsers({}, options(res));
    noStore(res).json({ users: users.map(orgUserResource) });
  });
  router.post("/users", async (req, res) => {
    const body = parseBody(req, bodies.newUser);
    const { user } = await clients.management.createOrganizationUser(
      { email: body.email ?? "", password: body.password ?? "", role: roleValue(body.role) },
      options(res),
    );
    noStore(res).status(201).json(orgUserResource(user!));
  });
  router.patch("/users/:userId", async (req, res) => {
    const body = parseBody(req, bodies.userChange);
    const { user } = await clients.management.updateOrganizationUser(
      { userId: req.params.userId, role: roleValue(body.role), ...(body.deactivated === undefined ? {} : { deactivated: body.deactivated }) },
      options(res),
    );
    noStore(res).json(orgUserResource(user!));
  });

  router.get("/authorized-apps", async (_req, res) => {
    const { apps } = await clients.management.listAuthorizedApps({}, options(res));
    noStore(res).json({
      apps: apps.map((app) => ({ grantId: app.grantId, clientId: app.clientId, name: app.clientName, scopes: app.scopes, grantedAt: iso(app.grantedAt) })),
    });
  });
  router.delete("/authorized-apps/:grantId", async (req, res) => {
    const { grantId } = await clients.management.revokeAuthorizedApp({ grantId: req.params.grantId }, options(res));
    noStore(res).json({ grantId, revoked: true });
  });
  return router;
}
