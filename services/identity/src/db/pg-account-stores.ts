import { inTransaction, type Pool } from "@svc/platform/db";
import type { AccountStores } from "../account-stores.ts";
import { findApiKeyOfUser, insertApiKey, listApiKeysOfUser, revokeApiKey } from "./api-keys.ts";
import { insertOrganization } from "./organizations.ts";
import { findUserProfile } from "./user-accounts.ts";
import { cachedCredentialHashesOfUser, findUser, findUserInOrg, insertUser, listUsersOfOrg, updateUserInOrg } from "./users.ts";

/** AccountStores on the identity schema. */
export function pgAccountStores(pool: Pool): AccountStores {
  return {
    organizations: {
      create: (name) => insertOrganization(pool, name),
      createWithAdmin: ({ name, email, passwordHash }) =>
        inTransaction(pool, async (client) => {
          const orgId = await insertOrganization(client, name);
          const user = await insertUser(client, { orgId, email, passwordHash, role: "admin" });
          // Throwing rolls the organization back with the refused user.
          if ("problem" in user) throw new EmailTaken();
          return { orgId, userId: user.userId };
        }).catch((error: unknown) => {
          if (error instanceof EmailTaken) return "email-taken" as const;
          throw error;
        }),
    },
    users: {
      profile: (userId) => findUserProfile(pool, userId),
      insert: (user) => insertUser(pool, user),
      find: (userId) => findUser(pool, userId),
      findInOrg: (orgId, userId) => findUserInOrg(pool, orgId, userId),
      listOfOrg: (orgId) => listUsersOfOrg(pool, orgId),
      updateInOrg: (orgId, userId, change) => updateUserInOrg(pool, orgId, userId, change),
      cachedCredentialHashes: (userId) => cachedCredentialHashesOfUser(pool, userId),
    },
    apiKeys: {
      insert: (key) => insertApiKey(pool, key),
      listOfUser: (userId) => listApiKeysOfUser(pool, userId),
      findOfUser: (userId, keyId) => findApiKeyOfUser(pool, userId, keyId),
      revoke: (keyId, ownerId) => revokeApiKey(pool, keyId, ownerId),
    },
  };
}

class EmailTaken extends Error {}
