import { randomUUID } from "node:crypto";
import type { AccountStores, ApiKeyRecord, UserRecord } from "./account-stores.ts";

/** What the in-memory stores hold, for tests to look at. */
export interface InMemoryAccounts {
  organizations: Map<string, string>;
  users: (UserRecord & { passwordHash: string })[];
  apiKeys: (ApiKeyRecord & { keyHash: string })[];
}

/** AccountStores in memory, for handler tests: the contract of account-stores.ts without Postgres. */
export function inMemoryAccountStores(): AccountStores & { held: InMemoryAccounts } {
  const held: InMemoryAccounts = { organizations: new Map(), users: [], apiKeys: [] };
  const userInOrg = (orgId: string, userId: string) => held.users.find((user) => user.userId === userId && user.orgId === orgId);
  const publicUser = ({ passwordHash: _hash, ...user }: UserRecord & { passwordHash: string }): UserRecord => ({ ...user });
  const publicKey = ({ keyHash: _hash, ...key }: ApiKeyRecord & { keyHash: string }): ApiKeyRecord => ({ ...key });
  return {
    held,
    organizations: {
      async create(name) {
        const id = randomUUID();
        held.organizations.set(id, name);
        return id;
      },
      async createWithAdmin({ name, email, passwordHash }) {
        if (held.users.some((other) => other.email.toLowerCase() === email.toLowerCase())) return "email-taken";
        const orgId = randomUUID();
        held.organizations.set(orgId, name);
        const userId = randomUUID();
        held.users.push({ orgId, email, passwordHash, role: "admin", userId, createdAt: new Date(), deactivatedAt: null });
        return { orgId, userId };
      },
    },
    users: {
      async insert(user) {
        if (!held.organizations.has(user.orgId)) return { problem: "organization_not_found" };
        if (held.users.some((other) => other.email.toLowerCase() === user.email.toLowerCase())) return { problem: "email_taken" };
        const userId = randomUUID();
        held.users.push({ ...user, userId, createdAt: new Date(), deactivatedAt: null });
        return { userId };
      },
      profile: async (userId) => {
        const user = held.users.find((candidate) => candidate.userId === userId);
        return (
          user && { userId: user.userId, orgId: user.orgId, email: user.email, organizationName: held.organizations.get(user.orgId) ?? "", role: user.role }
        );
      },
      find: async (userId) => {
        const user = held.users.find((candidate) => candidate.userId === userId);
        return user && { userId: user.userId, orgId: user.orgId };
      },
      findInOrg: async (orgId, userId) => {
        const user = userInOrg(orgId, userId);
        return user && publicUser(user);
      },
      listOfOrg: async (orgId) => held.users.filter((user) => user.orgId === orgId).map(publicUser),
      async updateInOrg(orgId, userId, change) {
        const user = userInOrg(orgId, userId);
        if (!user) return undefined;
        if (change.role) user.role = change.role;
        if (change.deactivated !== undefined) user.deactivatedAt = change.deactivated ? (user.deactivatedAt ?? new Date()) : null;
        return publicUser(user);
      },
      cachedCredentialHashes: async (userId) => held.apiKeys.filter((key) => key.userId === userId && !key.revokedAt).map((key) => key.keyHash),
    },
    apiKeys: {
      async insert(key) {
        const record = { ...key, keyId: randomUUID(), createdAt: new Date(), lastUsedAt: null, revokedAt: null };
        held.apiKeys.push(record);
        return publicKey(record);
      },
      listOfUser: async (userId) => held.apiKeys.filter((key) => key.userId === userId).map(publicKey),
      findOfUser: async (userId, keyId) => {
        const key = held.apiKeys.find((candidate) => candidate.keyId === keyId && candidate.userId === userId);
        return key && publicKey(key);
      },
      async revoke(keyId, ownerId) {
        const key = held.apiKeys.find((candidate) => candidate.keyId === keyId && (ownerId === undefined || candidate.userId === ownerId));
        if (!key) return undefined;
        key.revokedAt ??= new Date();
        return { keyHash: key.keyHash };
      },
    },
  };
}
