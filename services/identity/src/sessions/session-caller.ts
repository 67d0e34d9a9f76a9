import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { bearerToken, unauthenticated } from "@svc/platform";
import type { CredentialVerification } from "../credentials/verify-credential.ts";
import { isSessionToken, type SessionRecord, type SessionStore } from "./session-store.ts";

export const bearerTokenOf = (context: HandlerContext): string | undefined => bearerToken(context.requestHeader.get("authorization"));

/**
 * The dashboard session a call is made with. Credential management accepts nothing else: a valid
 * API key or OAuth access token is PERMISSION_DENIED (so a leaked one cannot mint credentials or
 * users), anything invalid is UNAUTHENTICATED.
 */
export async function requireSession(context: HandlerContext, sessions: SessionStore, credentials: CredentialVerification): Promise<SessionRecord> {
  const token = bearerTokenOf(context);
  if (!token) throw unauthenticated("Missing bearer token");
  if (isSessionToken(token)) return sessions.verify(token, context.requestHeader.get("x-csrf-token") ?? undefined);
  await credentials.verify(token);
  throw new ConnectError(
    "This endpoint accepts only a dashboard session: API keys and OAuth access tokens cannot manage credentials or users",
    Code.PermissionDenied,
  );
}
