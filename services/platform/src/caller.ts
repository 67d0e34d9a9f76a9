import { Code, ConnectError, createClient, type HandlerContext, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { CredentialKind, IdentityService } from "@svc/proto/svc/identity/v1/identity_pb";
import { insufficientScope, unauthenticated } from "./errors.ts";

export interface Caller {
  userId: string;
  orgId: string;
  kind: "api_key" | "oauth";
  /** Granted OAuth scopes; API keys have full access and no scopes. */
  scopes: string[];
  clientId: string;
}

export type Authenticate = (context: HandlerContext, requiredScope: string) => Promise<Caller>;

/**
 * How a service learns who is calling: it forwards the caller's `authorization` metadata to
 * identity's VerifyCredential (which caches) and then checks the scope the operation needs.
 * Scope checks live here, in the services, so direct gRPC callers meet the same rules as REST ones.
 */
export function createAuthenticator(identity: string | Transport): Authenticate {
  // A URL in services; a transport lets unit tests put an in-memory identity behind it.
  const transport = typeof identity === "string" ? createGrpcTransport({ baseUrl: identity }) : identity;
  const identityClient = createClient(IdentityService, transport);
  return async (context, requiredScope) => {
    const authorization = context.requestHeader.get("authorization");
    if (!authorization) throw unauthenticated();
    let verified;
    try {
      verified = await identityClient.verifyCredential({}, { headers: { authorization }, signal: context.signal });
    } catch (error) {
      const connectError = ConnectError.from(error);
      if (connectError.code === Code.Unauthenticated) throw unauthenticated(connectError.rawMessage);
      throw new ConnectError("identity service unavailable", Code.Unavailable);
    }
    const caller: Caller = {
      userId: verified.userId,
      orgId: verified.orgId,
      kind: verified.kind === CredentialKind.OAUTH ? "oauth" : "api_key",
      scopes: verified.scopes,
      clientId: verified.clientId,
    };
    if (caller.kind === "oauth" && !caller.scopes.includes(requiredScope)) throw insufficientScope(requiredScope);
    return caller;
  };
}
