import { generateKeyPairSync } from "node:crypto";
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import type { Logger } from "@svc/platform";
import { createArtifactAdapterFactory, type ArtifactAdapterDependencies } from "../storage/artifact-adapter.ts";
import { ALLOWED_SCOPES_METADATA, allowedScopesOf, pkceRequired, REQUIRE_PKCE_METADATA } from "../clients/client-metadata.ts";
import { clientSecretMatches } from "../clients/client-secret.ts";
import { csrfTokens } from "../interaction/csrf.ts";
import type { InteractionSignInAttempts } from "../interaction/sign-in-attempts.ts";
import { interactionRoutes, renderError, type AccountDirectory } from "../interaction/interaction-routes.ts";
import { shapeMetadata } from "./metadata.ts";
import { allowOnlyQueryResponseMode } from "./response-modes.ts";
import { OAUTH_PATHS } from "@svc/platform/contract";
import { rewriteAliases } from "./rewrite-path-aliases.ts";
import { assertScopesAllowed } from "./scope-allowance.ts";
import { shapeTokenEndpoints } from "./token-endpoint.ts";

export const ACCESS_TOKEN_PREFIX = "svc_oauth_";
export const REFRESH_TOKEN_PREFIX = "svc_rt_";

/** Lifetimes, in seconds (specification section 8; docs/decisions/0005-oauth-token-lifetimes-and-rotation.md). */
export const LIFETIMES = {
  authorizationCode: 10 * 60,
  accessToken: 60 * 60,
  /** Each refresh token, from its own issue (specification section 3), within the grant's lifetime. */
  refreshToken: 30 * 24 * 60 * 60,
  /** Signed-in browser session: a second authorization within it asks for consent only. */
  session: 24 * 60 * 60,
  /** Time to complete sign-in and consent. */
  interaction: 60 * 60,
} as const;

export interface OAuthProviderOptions extends ArtifactAdapterDependencies {
  /** The externally visible origin (PUBLIC_URL): the issuer, and the base of every URL we send. */
  issuer: string;
  accounts: AccountDirectory;
  /** Keys that sign the session and interaction cookies (the first signs; all verify). */
  cookieKeys: string[];
  signInAttempts: InteractionSignInAttempts;
  /**
   * OAUTH_GRANT_LIFETIME_SECONDS: how long an authorization lasts, from the first exchange of its
   * code, however often it is refreshed; then the user approves again.
   */
  grantLifetimeSeconds: number;
  logger: Logger;
}

/**
 * The OAuth 2.0 authorization server: oidc-provider 9 configured to the specification's rules
 * (README, "OAuth 2.0", lists every hook and why). Some hooks replace or wrap oidc-provider's
 * model methods, so the package is pinned to exactly 9.13.3; the end-to-end tests in test/oauth
 * cover each hook, and must pass before any upgrade.
 */
export function createOAuthProvider(options: OAuthProviderOptions): Provider {
  const { issuer, accounts, logger } = options;
  // The resource server every token is for: the REST API.
  const apiResource = `${issuer}/api/v1`;

  const configuration: Configuration = {
    adapter: createArtifactAdapterFactory(options),
    clients: [],
    clientAuthMethods: ["client_secret_post", "client_secret_basic"],
    responseTypes: ["code"],
    scopes: [],
    extraClientMetadata: { properties: [ALLOWED_SCOPES_METADATA, REQUIRE_PKCE_METADATA] },
    // Required for public clients and for registrations that ask for it; optional otherwise (why: pkceRequired).
    pkce: { required: (_ctx, client) => pkceRequired(client) },
    // No id_token is ever issued (no `openid` scope), so no signing key is used; an ephemeral
    // one keeps oidc-provider from loading its published development keys.
    jwks: { keys: [ephemeralSigningKey()] },
    clientDefaults: { id_token_signed_response_alg: "ES256" },
    cookies: {
      keys: options.cookieKeys,
      long: { httpOnly: true, sameSite: "lax", signed: true },
      short: { httpOnly: true, sameSite: "lax", signed: true },
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      registration: { enabled: false },
      introspection: { enabled: false },
      revocation: {
        enabled: true,
        // RFC 7009 §2.1: a client may revoke only its own tokens.
        allowedPolicy: async (_ctx, client, token) => {
          if (token.clientId !== client.clientId) throw new errors.InvalidRequest("client is not authorized to revoke the presented token");
          return true;
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => apiResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource, client) => {
          if (resource !== apiResource) throw new errors.InvalidTarget();
          const allowed = allowedScopesOf(client);
          if (ctx.oidc.route === "authorization") assertScopesAllowed(ctx.oidc.params?.scope as string | undefined, allowed);
          return { scope: allowed.join(" "), accessTokenFormat: "opaque", accessTokenTTL: LIFETIMES.accessToken };
        },
      },
    },
    // The specification makes redirect_uri a required parameter of both requests.
    allowOmittingSingleRegisteredRedirectUri: false,
    clientBasedCORS: () => false,
    ttl: {
      AuthorizationCode: LIFETIMES.authorizationCode,
      AccessToken: LIFETIMES.accessToken,
      RefreshToken: (_ctx, token) => refreshTokenTtl((token as { iiat?: number }).iiat, options.grantLifetimeSeconds),
      // Outlives its refresh tokens: a code may be exchanged up to 10 minutes after consent.
      Grant: options.grantLifetimeSeconds + LIFETIMES.authorizationCode,
      Session: LIFETIMES.session,
      Interaction: LIFETIMES.interaction,
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: true,
    // Tokens belong to the application, not to the browser session that approved them.
    expiresWithSession: async () => false,
    // Every authorization asks for consent (the spec: "a second authorization asks only for
    // consent"), so a grant is only ever the one just approved in this interaction.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    findAccount: async (_ctx, sub) => {
      const account = await accounts.find(sub);
      return account && { accountId: account.userId, claims: () => ({ sub: account.userId }) };
    },
    interactions: { url: (_ctx, interaction) => `${OAUTH_PATHS.interaction}/${interaction.uid}` },
    routes: {
      authorization: OAUTH_PATHS.authorization,
      token: OAUTH_PATHS.token,
      revocation: OAUTH_PATHS.revocation,
    },
    renderError: async (ctx, out) => {
      renderError(ctx, ctx.status, out.error, out.error_description as string | undefined);
    },
  };

  const provider = new Provider(issuer, configuration);
  // The browser-facing scheme and host come from X-Forwarded-*, which the listener sets from
  // PUBLIC_URL on every request (http-listener.ts): never from the client.
  provider.proxy = true;
  installTokenPrefixes(provider);
  installHashedClientSecrets(provider);
  allowOnlyQueryResponseMode(provider);

  const csrf = csrfTokens(options.cookieKeys[0]!);
  provider.use(rewriteAliases);
  provider.use(shapeTokenEndpoints);
  provider.use(shapeMetadata);
  provider.use(
    interactionRoutes({
      provider,
      accounts,
      registeringOrganizationName: (clientId) => options.clients.registeringOrganizationName(clientId),
      csrf,
      signInAttempts: options.signInAttempts,
      logger,
    }),
  );

  provider.on("server_error", (ctx: KoaContextWithOIDC, error: Error) => {
    logger.error({ err: { message: error.message, stack: error.stack }, path: ctx.path }, "OAuth server error");
  });
  return provider;
}

/**
 * A new refresh token (first or rotated) lives 30 days from now, but never past the grant's
 * absolute end: `grantLifetimeSeconds` after the first refresh token of the grant was issued
 * (oidc-provider carries that time, `iiat`, through every rotation). A user who keeps using an
 * application therefore approves it again once a grant lifetime, not every 30 days.
 */
export function refreshTokenTtl(firstIssuedAt: number | undefined, grantLifetimeSeconds: number, now = Math.floor(Date.now() / 1000)): number {
  const grantEndsAt = (firstIssuedAt ?? now) + grantLifetimeSeconds;
  return Math.max(1, Math.min(LIFETIMES.refreshToken, grantEndsAt - now));
}

/**
 * The token values are oidc-provider's opaque ids (256 random bits, base64url); the prefixes of
 * the specification are added where the ids are made. Wrapping keeps the library's generator.
 */
function installTokenPrefixes(provider: Provider) {
  type WithTokenIds = { prototype: { generateTokenId(this: unknown): string } };
  for (const [model, prefix] of [
    [provider.AccessToken as unknown as WithTokenIds, ACCESS_TOKEN_PREFIX],
    [provider.RefreshToken as unknown as WithTokenIds, REFRESH_TOKEN_PREFIX],
  ] as const) {
    const generate = model.prototype.generateTokenId;
    model.prototype.generateTokenId = function prefixedTokenId(this: unknown) {
      return `${prefix}${generate.call(this)}`;
    };
  }
}

/** The stored `client_secret` is the secret's SHA-256: hash what is presented, compare in constant time. */
function installHashedClientSecrets(provider: Provider) {
  provider.Client.prototype.compareClientSecret = function compareHashedSecret(this: { clientSecret?: string }, presented: string) {
    return clientSecretMatches(presented, this.clientSecret ?? "");
  };
}

function ephemeralSigningKey() {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { ...privateKey.export({ format: "jwk" }), use: "sig", alg: "ES256" };
}
