// The OAuth stores the authorization server and the management handlers use (clients, what
// oidc-provider persists, the organization's client policy) and their records: the records are
// declared here, and the Postgres adapters (db/pg-oauth-*-store.ts) import them from here.

export interface OAuthClientRecord {
  clientId: string;
  orgId: string;
  name: string;
  redirectUris: string[];
  scopes: string[];
  secretHash: string;
  /** Every authorization request must carry a PKCE code_challenge (docs/security.md, "PKCE"). */
  requirePkce: boolean;
  createdAt: Date;
}

/** What an organization may change of its client. */
export interface OAuthClientChange {
  name: string;
  redirectUris: string[];
  scopes: string[];
  requirePkce: boolean;
}

/** identity.oauth_clients. A client id no client can have (NUL, too long) names no client. */
export interface OAuthClientStore {
  /** Inserts the client; `undefined` when the organization does not exist. */
  create(client: Omit<OAuthClientRecord, "createdAt" | "requirePkce"> & { requirePkce?: boolean }): Promise<OAuthClientRecord | undefined>;
  find(clientId: string): Promise<OAuthClientRecord | undefined>;
  /** The name of the organization that registered the client (the consent page shows it). */
  registeringOrganizationName(clientId: string): Promise<string | undefined>;
  /** The organization's clients, oldest first. */
  listByOrg(orgId: string): Promise<OAuthClientRecord[]>;
  findInOrg(orgId: string, clientId: string): Promise<OAuthClientRecord | undefined>;
  /**
   * Changes the organization's client. When a scope was removed, every code, token and grant of
   * the client is deleted with it (users approve again with the new allowance); answers the
   * deleted access tokens' hashes. Undefined when the organization has no such client.
   */
  updateInOrg(orgId: string, clientId: string, change: OAuthClientChange): Promise<{ client: OAuthClientRecord; revokedAccessTokens: string[] } | undefined>;
  /** Replaces the secret hash of the organization's client: the old secret stops working at once. */
  rotateSecretInOrg(orgId: string, clientId: string, secretHash: string): Promise<OAuthClientRecord | undefined>;
  organizationExists(orgId: string): Promise<boolean>;
  /**
   * Deletes the client and every code, token and grant issued to it, together. Answers the hashes
   * of the deleted access tokens (to evict them from the verification cache), or `undefined` when
   * there was no such client (in `orgId`, when given).
   */
  delete(clientId: string, orgId?: string): Promise<string[] | undefined>;
}

/** The columns an artifact is found and revoked by, besides its hashed id. */
export interface ArtifactIndexes {
  grantId?: string | undefined;
  clientId?: string | undefined;
  sessionUid?: string | undefined;
}

export interface StoredArtifact {
  payload: Record<string, unknown>;
  consumedAt: Date | null;
}

/**
 * What oidc-provider persists (codes, tokens, grants, sessions, interactions: its `model`), keyed
 * by the SHA-256 of each artifact's id. Callers pass hashes, never ids. Expired artifacts are
 * invisible to every read.
 */
export interface ProviderArtifactStore {
  upsert(model: string, idHash: string, payload: object, indexes: ArtifactIndexes, expiresInSeconds: number): Promise<void>;
  find(model: string, idHash: string): Promise<StoredArtifact | undefined>;
  findBySessionUid(model: string, sessionUid: string): Promise<StoredArtifact | undefined>;
  /** Marks a code or refresh token used: of two concurrent exchanges of one value exactly one gets `true`. */
  consume(model: string, idHash: string): Promise<boolean>;
  destroy(model: string, idHash: string): Promise<void>;
  /** Deletes one kind of artifact of a grant; answers the hashes of what was deleted. */
  destroyByGrant(model: string, grantId: string): Promise<string[]>;
  /** Deletes the grant and everything issued from it; answers the hashes of its access tokens. */
  destroyGrant(grantId: string): Promise<string[]>;
  /** Removes artifacts that expired more than `graceSeconds` ago, at most `limit` per call; answers how many. */
  purgeExpired(graceSeconds: number, limit?: number): Promise<number>;
}

export interface AccessTokenRecord {
  userId: string;
  orgId: string;
  role: "admin" | "member";
  clientId: string;
  scope: string;
  expiresAt: Date;
}

/** A grant a user gave a client (an authorized application), as the dashboard lists it. */
export interface AuthorizedGrantRecord {
  grantId: string;
  clientId: string;
  clientName: string;
  scopes: string[];
  grantedAt: Date;
}

/** The artifacts as a user's authorizations: the access tokens they issued and the grants they gave. */
export interface UserAuthorizationStore {
  /**
   * The live access token with this hash, with its user's organization (any organization's user
   * may authorize any client). A token counts only while its grant, its client and its user still
   * exist: revoking a grant or deleting a client ends every token issued under it.
   */
  findAccessToken(idHash: string): Promise<AccessTokenRecord | undefined>;
  /** The user's live grants (authorized applications), newest first, with the client's name. */
  listGrantsOfUser(userId: string): Promise<AuthorizedGrantRecord[]>;
  /**
   * Ends the user's OAuth browser sessions and their sign-in and consent steps in progress: a
   * deactivated user must not approve anything from a session opened before. Answers how many.
   */
  endBrowserSessionsOf(userId: string): Promise<number>;
  /** Whether this grant exists, is live and belongs to the user. */
  isGrantOfUser(grantId: string, userId: string): Promise<boolean>;
}

/** identity.oauth_artifacts, as oidc-provider stores them and as the users' authorizations. */
export interface OAuthArtifactStore extends ProviderArtifactStore, UserAuthorizationStore {}

/** `all`: members may authorize any organization's client (the default). `listed`: only listed ones and the organization's own. */
export type OAuthClientPolicyMode = "all" | "listed";

export interface AllowedOAuthClientRecord {
  clientId: string;
  /** The client's name and the organization that registered it, as the consent page shows them. */
  name: string;
  organizationName: string;
  addedAt: Date;
}

export interface OAuthClientPolicyRecord {
  mode: OAuthClientPolicyMode;
  allowedClients: AllowedOAuthClientRecord[];
}

/** What listing a client came to. */
export type AllowClientOutcome = "listed" | "unknown-client" | "own-client" | "list-full";

/** An allow-list longer than this is not an allow-list; it also bounds the page and the answer. */
export const ALLOW_LIST_MAX_CLIENTS = 100;

/**
 * An organization's OAuth client policy and allow-list. Every read and change is confined to the
 * organization given, which callers take from the caller's session, never from a request.
 */
export interface OAuthClientPolicyStore {
  /** The organization's policy and its listed clients (oldest first); undefined for no such organization. */
  policyOf(orgId: string): Promise<OAuthClientPolicyRecord | undefined>;
  /**
   * Sets the mode. Switching to `listed` ends, together with it, every authorization a member
   * holds for a client that is now refused; answers the deleted access tokens' hashes.
   */
  setMode(orgId: string, mode: OAuthClientPolicyMode): Promise<{ revokedAccessTokens: string[] } | undefined>;
  /** Lists any organization's client for this organization's members. Listing a listed client again changes nothing. */
  allow(orgId: string, clientId: string, addedBy: string): Promise<AllowClientOutcome>;
  /**
   * Takes a client off the organization's list; with the `listed` mode, members' authorizations of
   * it end together with it. Undefined when it was not listed.
   */
  disallow(orgId: string, clientId: string): Promise<{ revokedAccessTokens: string[] } | undefined>;
  /**
   * Whether a member of `orgId` may authorize `clientId` now: the organization's own client always;
   * another organization's when the mode is `all` or the client is listed.
   */
  allows(orgId: string, clientId: string): Promise<boolean>;
}
