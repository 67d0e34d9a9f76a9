// The account stores the handlers use (organizations, users, API keys) and their records: the records
// are declared here, and the Postgres adapter (db/pg-account-stores.ts) and db/ import them from here.
/** Who a user is, as the consent page and the dashboard show it. */
export interface UserProfile {
  userId: string;
  orgId: string;
  email: string;
  organizationName: string;
  role: UserRole;
}

export interface ApiKeyRecord {
  keyId: string;
  userId: string;
  orgId: string;
  name: string;
  displayPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export type UserRole = "admin" | "member";

export interface UserRecord {
  userId: string;
  orgId: string;
  email: string;
  role: UserRole;
  createdAt: Date;
  deactivatedAt: Date | null;
}

export type InsertUserResult = { userId: string } | { problem: "organization_not_found" | "email_taken" };

export interface OrganizationStore {
  /** Creates an organization; answers its id. */
  create(name: string): Promise<string>;
  /**
   * Sign-up: the organization and its first admin together, so a taken e-mail address leaves no
   * empty organization behind.
   */
  createWithAdmin(signUp: { name: string; email: string; passwordHash: string }): Promise<{ orgId: string; userId: string } | "email-taken">;
}

export interface UserStore {
  /** A user of an existing organization with an e-mail address nobody has yet (else the problem). */
  insert(user: { orgId: string; email: string; passwordHash: string; role: UserRole }): Promise<InsertUserResult>;
  /** Who a user is, as the dashboard shows it (e-mail, organization name, role). */
  profile(userId: string): Promise<UserProfile | undefined>;
  /** Any organization's user: for the operator's admin API only. */
  find(userId: string): Promise<{ userId: string; orgId: string } | undefined>;
  /** The user of this organization (another organization's user is undefined, like an unknown one). */
  findInOrg(orgId: string, userId: string): Promise<UserRecord | undefined>;
  listOfOrg(orgId: string): Promise<UserRecord[]>;
  /** Changes role and/or deactivation of a user of this organization; undefined when there is none. */
  updateInOrg(orgId: string, userId: string, change: { role?: UserRole; deactivated?: boolean }): Promise<UserRecord | undefined>;
  /** Hashes of every credential of the user that the verification cache may hold (API keys, OAuth access tokens). */
  cachedCredentialHashes(userId: string): Promise<string[]>;
}

export interface ApiKeyStore {
  insert(key: { userId: string; orgId: string; name: string; displayPrefix: string; keyHash: string }): Promise<ApiKeyRecord>;
  /** The user's keys, revoked ones included, oldest first. */
  listOfUser(userId: string): Promise<ApiKeyRecord[]>;
  /** One key of the user (another user's key is undefined, like an unknown one). */
  findOfUser(userId: string, keyId: string): Promise<ApiKeyRecord | undefined>;
  /**
   * Marks the key revoked (only if `ownerId` owns it, when given; the first revocation time is
   * kept) and answers its hash, to invalidate the verification cache; undefined when no such key.
   */
  revoke(keyId: string, ownerId?: string): Promise<{ keyHash: string } | undefined>;
}

/**
 * The accounts the admin, management and session handlers manage: organizations, their users and the
 * users' API keys. Postgres: db/pg-account-stores.ts.
 */
export interface AccountStores {
  organizations: OrganizationStore;
  users: UserStore;
  apiKeys: ApiKeyStore;
}
