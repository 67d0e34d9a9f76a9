import { Code, ConnectError, createClient, type HandlerContext, type Transport } from "@connectrpc/connect";
import { CredentialKind, IdentityService, Role } from "@svc/proto/svc/identity/v1/identity_pb";
import { createRedisCredentialCache, type CacheEntry, type CredentialCache } from "./credentials/credential-cache.ts";
import { countingCacheLookups } from "./telemetry/credential-cache-metrics.ts";
import type { Registry } from "./telemetry/metrics-registry.ts";
import { credentialCacheKeyOf } from "./credentials/credential-cache-key.ts";
import { bearerToken } from "./credentials/bearer-token.ts";
import { hashToken } from "./credentials/token-hash.ts";
import { adminRoleRequired, insufficientScope, unauthenticated } from "./errors.ts";
import { internalTransport } from "./grpc/internal-transport.ts";
import type { Logger } from "./logger.ts";
import type { Redis } from "ioredis";
import { connectRedis } from "./redis.ts";
import type { Scope } from "./contract/scopes.ts";

export interface Caller {
  userId: string;
  orgId: string;
  /** `session`: a person signed in to the dashboard (full access, like an API key). */
  kind: "api_key" | "oauth" | "session";
  /** The user's role in their organization. */
  role: "admin" | "member";
  /** Granted OAuth scopes; API keys and sessions have full access and no scopes. */
  scopes: string[];
  clientId: string;
}

/**
 * Resolves an `Authorization: Bearer ...` header to its caller; UNAUTHENTICATED when it is not
 * valid. A dashboard session also needs its CSRF token (`x-csrf-token`), which identity checks.
 */
export type ResolveCaller = (authorization: string, signal?: AbortSignal, csrfToken?: string, cacheRead?: CacheRead) => Promise<Caller>;

/**
 * A ResolveCaller that knows a fixed table of bearer tokens, for handler tests over
 * createRouterTransport: any other token is refused as the identity service refuses it.
 */
export const callerTable =
  (callers: Record<string, Caller>): ResolveCaller =>
  async (authorization) => {
    const caller = callers[authorization.replace(/^Bearer /, "")];
    if (!caller) throw new ConnectError("Invalid, expired or revoked token", Code.Unauthenticated);
    return caller;
  };

/**
 * What the shared cache held for this request's token, when the caller has already read it (the
 * gateway's rate limiter does, to key its bucket): resolving then costs no second round trip.
 */
export interface CacheRead {
  entry: CacheEntry | undefined;
}

export interface AuthenticateOptions {
  /** The operation changes what the organization administers (webhooks, OAuth clients, users). */
  adminOnly?: boolean;
}

export type Authenticate = (context: HandlerContext, requiredScope: Scope, options?: AuthenticateOptions) => Promise<Caller>;

/** Dashboard session tokens: never in the shared cache, always verified by identity (idle timeout, CSRF). */
export const SESSION_TOKEN_PREFIX = "svc_sess_";

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

/**
 * How any process learns who is calling: first the shared verification cache, then identity's
 * VerifyCredential (which verifies against its database and fills the cache). The rules of what
 * makes a token valid live only in identity; callers only read its answers.
 */
export function createCallerResolver(options: CallerResolverOptions): ResolveCaller {
  const transport = typeof options.identity === "string" ? internalTransport(options.identity) : options.identity;
  const identity = createClient(IdentityService, transport);
  const now = options.now ?? Date.now;

  /** The cached caller, "revoked" for any cached refusal (revoked or unknown token), or undefined. */
  const fromCache = async (authorization: string, cacheRead: CacheRead | undefined): Promise<Caller | "revoked" | undefined> => {
    const token = bearerToken(authorization);
    if (!options.cache || !token || token.startsWith(SESSION_TOKEN_PREFIX)) return undefined;
    const entry = cacheRead ? cacheRead.entry : await options.cache.get(hashToken(token)).catch(() => undefined);
    if (entry === "revoked" || entry === "unknown") return "revoked";
    if (!entry || (entry.expiresAt !== undefined && entry.expiresAt <= now())) return undefined;
    // An entry written before roles existed counts as a member's: never more rights than verified.
    return { userId: entry.userId, orgId: entry.orgId, kind: entry.kind, role: entry.role ?? "member", scopes: entry.scopes, clientId: entry.clientId };
  };

  return async (authorization, signal, csrfToken, cacheRead) => {
    const cached = await fromCache(authorization, cacheRead);
    if (cached === "revoked") throw unauthenticated("Invalid, expired or revoked token");
    if (cached) return cached;
    let verified;
    try {
      const headers: Record<string, string> = { authorization };
      if (csrfToken) headers["x-csrf-token"] = csrfToken;
      verified = await identity.verifyCredential({}, { headers, signal, timeoutMs: 5_000 });
    } catch (error) {
      const connectError = ConnectError.from(error);
      if (connectError.code === Code.Unauthenticated) throw unauthenticated(connectError.rawMessage);
      // A session presented without its CSRF token.
      if (connectError.code === Code.PermissionDenied) throw new ConnectError(connectError.rawMessage, Code.PermissionDenied);
      throw new ConnectError("identity service unavailable", Code.Unavailable);
    }
    return {
      userId: verified.userId,
      orgId: verified.orgId,
      kind: verified.kind === CredentialKind.OAUTH ? "oauth" : verified.kind === CredentialKind.SESSION ? "session" : "api_key",
      role: verified.role === Role.ADMIN ? "admin" : "member",
      scopes: verified.scopes,
      clientId: verified.clientId,
    };
  };
}

/**
 * A service's authorization step: resolve the caller from the `authorization` metadata, then
 * check the scope the operation needs, and the admin role for what only admins may do. Scope
 * checks live here, in the services, so direct gRPC callers meet the same rules as REST ones.
 * API keys and sessions have full access to what their user may do; an OAuth token is limited
 * to its scopes as well as to its user's role.
 */
export function createAuthenticator(resolve: ResolveCaller): Authenticate {
  return async (context, requiredScope, options = {}) => {
    const authorization = context.requestHeader.get("authorization");
    if (!authorization) throw unauthenticated();
    const caller = await resolve(authorization, context.signal, context.requestHeader.get("x-csrf-token") ?? undefined);
    if (caller.kind === "oauth" && !caller.scopes.includes(requiredScope)) throw insufficientScope(requiredScope);
    if (options.adminOnly && caller.role !== "admin") throw adminRoleRequired();
    return caller;
  };
}

/**
 * A service's caller resolver from its configuration: with REDIS_URL it reads identity's shared
 * verification cache first. The Redis connection is shared with the service's other uses (rate
 * limits); `close` releases it.
 */
export async function connectCallerResolver(
  config: { IDENTITY_URL: string; REDIS_URL?: string | undefined; REDIS_KEY_PREFIX: string; CREDENTIAL_CACHE_KEY?: string | undefined },
  logger: Logger,
  /** Counts the cache's lookups (credential_cache_lookups_total) in this registry. */
  metrics?: Registry,
): Promise<{ resolveCaller: ResolveCaller; redis: Redis | undefined; credentialCache: CredentialCache | undefined; close: () => Promise<void> }> {
  const redis = config.REDIS_URL ? await connectRedis(config.REDIS_URL, logger) : undefined;
  const redisCache =
    redis && createRedisCredentialCache(redis, { keyPrefix: config.REDIS_KEY_PREFIX, authenticationKey: credentialCacheKeyOf(config, logger), logger });
  const credentialCache = redisCache && metrics ? countingCacheLookups(redisCache, metrics) : redisCache;
  return {
    redis,
    credentialCache,
    resolveCaller: createCallerResolver({ identity: config.IDENTITY_URL, cache: credentialCache }),
    close: async () => {
      await redis?.quit();
    },
  };
}
