import { Router } from "express";
import type { z } from "zod";
import type { ResolveCaller } from "@svc/platform";
import type { CredentialVerification } from "../contract/auth.ts";
import { forwardedCredential } from "../http/bearer.ts";

/**
 * POST /api/v1/auth (spec 4.1): resolves the caller's API key or OAuth access token (identity's
 * shared verification cache, as the rate limiter already read it for this request, then its
 * VerifyCredential). Mounted behind requireBearer; an invalid
 * token comes back as UNAUTHENTICATED and leaves as 401 through the one error mapping.
 */
export function authRoutes(resolveCaller: ResolveCaller): Router {
  const router = Router();
  router.post("/auth", async (_req, res) => {
    const credential = forwardedCredential(res.locals);
    const caller = await resolveCaller(credential.authorization!, undefined, credential["x-csrf-token"], res.locals.credentialCacheRead);
    res.set("Cache-Control", "no-store");
    const verification: z.input<typeof CredentialVerification> = {
      valid: true,
      userId: caller.userId,
      orgId: caller.orgId,
      kind: caller.kind,
      scopes: caller.scopes,
      clientId: caller.clientId || null,
    };
    res.json(verification);
  });
  return router;
}
