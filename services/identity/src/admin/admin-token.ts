import { createHash, timingSafeEqual } from "node:crypto";
import type { HandlerContext } from "@connectrpc/connect";
import { bearerToken, unauthenticated } from "@svc/platform";

/**
 * The administrator token used when ADMIN_TOKEN is unset, so `npm start` and `npm run cli` work
 * with no configuration. Identity warns loudly when it is in use and refuses it in production.
 */
export const DEVELOPMENT_ADMIN_TOKEN = "svc-dev-admin-token-do-not-use-in-production";

/**
 * A Connect request gate for IdentityAdminService: the call must carry
 * `authorization: Bearer <admin token>`. It runs before the request body is read. Both sides are
 * hashed first so the comparison is constant-time whatever their lengths.
 */
export function requireAdminToken(adminToken: string) {
  const expected = sha256(adminToken);
  return (context: HandlerContext) => {
    const token = bearerToken(context.requestHeader.get("authorization"));
    if (token === undefined || !timingSafeEqual(sha256(token), expected)) {
      throw unauthenticated("The administrator token is missing or wrong");
    }
  };
}

const sha256 = (value: string) => createHash("sha256").update(value).digest();
