/**
 * The public paths of the authorization server, in one place for the two sides that route them:
 * identity's OAuth listener (oidc-provider) and the gateway, which forwards exactly these to it.
 * The specification's prose and its OpenAPI description name different paths for the same
 * endpoints, so each has a canonical path (the one oidc-provider routes and the metadata
 * advertises) and aliases that identity rewrites to it before routing.
 */
export const OAUTH_PATHS = {
  authorization: "/oauth/authorize",
  token: "/api/oauth/token",
  revocation: "/api/oauth/revoke",
  interaction: "/oauth/interaction",
  metadata: "/.well-known/oauth-authorization-server",
} as const;

/** Alias → canonical path: the OpenAPI description's `/api/v1/oauth/*`, and `/oauth/revoke`. */
export const OAUTH_PATH_ALIASES: ReadonlyMap<string, string> = new Map([
  ["/api/v1/oauth/authorize", OAUTH_PATHS.authorization],
  ["/api/v1/oauth/token", OAUTH_PATHS.token],
  ["/api/v1/oauth/revoke", OAUTH_PATHS.revocation],
  ["/oauth/revoke", OAUTH_PATHS.revocation],
]);

const EXACT_PATHS = new Set<string>([OAUTH_PATHS.authorization, OAUTH_PATHS.token, OAUTH_PATHS.revocation, OAUTH_PATHS.metadata, ...OAUTH_PATH_ALIASES.keys()]);

/** The sign-in and consent pages, and oidc-provider's resume step after them. */
const PATH_PREFIXES = [`${OAUTH_PATHS.interaction}/`, `${OAUTH_PATHS.authorization}/`];

/** Whether the authorization server answers this path (the gateway forwards it, unchanged). */
export const isOAuthPath = (path: string): boolean => EXACT_PATHS.has(path) || PATH_PREFIXES.some((prefix) => path.startsWith(prefix));
