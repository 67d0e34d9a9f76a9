import { Code, ConnectError, createClient, type HandlerContext, type Transport } from "@connectrpc/connect";
import { CredentialKind, IdentityService } from "@svc/proto/svc/identity/v1/identity_pb";
import { createRedisCredentialCache, type CredentialCache } from "./credentials/credential-cache.ts";
import { hashToken } from "./credentials/token-hash.ts";
import { insufficientScope, unauthenticated } from "./errors.ts";
import { internalTransport } from "./grpc/internal-transport.ts";
import type { Logger } from "./logger.ts";
import type { Redis } from "ioredis";
import { connectRedis } from "./redis.ts";

export interface Caller {
  userId: string;
  orgId: string;
  kind: "api_key" | "oauth";
  /** Granted OAuth scopes; API keys have full access and no scopes. */
  scopes: string[];
  clientId: string;
}

/** Resolves an `Authorization: Bearer ...` header to its caller; UNAUTHENTICATED when it is not valid. */
export type ResolveCaller = (authorization: string, signal?: AbortSignal) => Promise<Caller>;

export type Authenticate = (context: HandlerContext, requiredScope: string) => Promise<Caller>;

export interface CallerResolverOptions {
  /** identity's URL, or (in unit tests) a transport with an in-memory identity behind it. */
  identity: string | Transport;
  /**
   * The shared verification cache identity writes (Redis in full mode). A warm credential then
   * costs one GET instead of an RPC; a revocation marker refuses at once. Without it every
   * resolution asks identity, which keeps its own in-process cache.
   */
  cache?: CredentialCache;
  now?: () => number;
}

const bearerToken = (authorization: string) => /^Bearer +(.+)$/i.exec(authorization)?.[1]?.trim() ?? "";

/**
 * How any process learns who is calling: first the shared verification cache, then identity's
 * VerifyCredential (which verifies against its database and fills the cache). The rules of what
 * makes a token valid live only in identity; callers only read its answers.
 */
export function createCallerResolver(options: CallerResolverOptions): ResolveCaller {
  const transport = typeof options.identity === "string" ? internalTransport(options.identity) : options.identity;
  const identity = createClient(IdentityService, transport);
  const now = options.now ?? Date.now;

  const fromCache = async (authorization: string): Promise<Caller | "revoked" | undefined> => {
    const token = bearerToken(authorization);
    if (!options.cache || !token) return undefined;
    const entry = await options.cache.get(hashToken(token)).catch(() => undefined);
    if (entry === "revoked") return "revoked";
    if (!entry || (entry.expiresAt !== undefined && entry.expiresAt <= now())) return undefined;
    return { userId: entry.userId, orgId: entry.orgId, kind: entry.kind, scopes: entry.scopes, clientId: entry.clientId };
  };

  return async (authorization, signal) => {
    const cached = await fromCache(authorization);
    if (cached === "revoked") throw unauthenticated("Invalid, expired or revoked token");
    if (cached) return cached;
    let verified;
    try {
      verified = await identity.verifyCredential({}, { headers: { authorization }, signal, timeoutMs: 5_000 });
    } catch (error) {
      const connectError = ConnectError.from(error);
      if (connectError.code === Code.Unauthenticated) throw unauthenticated(connectError.rawMessage);
      throw new ConnectError("identity service unavailable", Code.Unavailable);
    }
    return {
      userId: verified.userId,
      orgId: verified.orgId,
      kind: verified.kind === CredentialKind.OAUTH ? "oauth" : "api_key",
      scopes: verified.scopes,
      clientId: verified.clientId,
    };
  };
}

/**
 * A service's authorization step: resolve the caller from the `authorization` metadata, then
 * check the scope the operation needs. Scope checks live here, in the services, so direct gRPC
 * callers meet the same rules as REST ones. API keys have full access.
 */
export function createAuthenticator(resolve: ResolveCaller): Authenticate {
  return async (context, requiredScope) => {
    const authorization = context.requestHeader.get("authorization");
    if (!authorization) throw unauthenticated();
    const caller = await resolve(authorization, context.signal);
    if (caller.kind === "oauth" && !caller.scopes.includes(requiredScope)) throw insufficientScope(requiredScope);
    return caller;
  };
}

/**
 * A service's caller resolver from its configuration: with REDIS_URL it reads identity's shared
 * verification cache first. The Redis connection is shared with the service's other uses (rate
 * limits); `close` releases it.
 */
export async function connectCallerResolver(
  config: { IDENTITY_URL: string; REDIS_URL?: string | undefined; REDIS_KEY_PREFIX: string },
  logger: Logger,
): Promise<{ resolveCaller: ResolveCaller; redis: Redis | undefined; close: () => Promise<void> }> {
  const redis = config.REDIS_URL ? await connectRedis(config.REDIS_URL, logger) : undefined;
  return {
    redis,
    resolveCaller: createCallerResolver({
      identity: config.IDENTITY_URL,
      cache: redis && createRedisCredentialCache(redis, config.REDIS_KEY_PREFIX),
    }),
    close: async () => {
      await redis?.quit();
    },
  };
}
