import { Router } from "express";
import { CredentialKind } from "@svc/proto/svc/identity/v1/identity_pb";
import type { Clients } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";

const kindNames: Partial<Record<CredentialKind, string>> = {
  [CredentialKind.API_KEY]: "api_key",
  [CredentialKind.OAUTH]: "oauth",
};

/**
 * POST /api/v1/auth (spec 4.1): resolves the caller's API key or OAuth access token through
 * identity's VerifyCredential. Mounted behind requireBearer; an invalid token comes back as
 * UNAUTHENTICATED and leaves as 401 through the one error mapping.
 */
export function authRoutes(clients: Clients): Router {
  const router = Router();
  router.post("/auth", async (_req, res) => {
    const verified = await clients.identity.verifyCredential({}, { headers: forwardedCredential(res.locals), timeoutMs: 5_000 });
    const kind = kindNames[verified.kind];
    if (!kind) throw new Error(`identity answered an unknown credential kind ${verified.kind}`);
    res.set("Cache-Control", "no-store");
    res.json({
      valid: true,
      userId: verified.userId,
      orgId: verified.orgId,
      kind,
      scopes: verified.scopes,
      clientId: verified.clientId || null,
    });
  });
  return router;
}
