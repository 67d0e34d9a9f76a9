import type { Pool } from "@svc/platform";
import { hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from "../credentials/password.ts";
import { findUserByEmail, findUserProfile } from "../db/user-accounts.ts";
import type { AccountDirectory } from "./interactions.ts";

/**
 * Signs users in with identity's own accounts (e-mail and scrypt password). An unknown e-mail
 * address costs the same scrypt work as a wrong password, so response times do not reveal
 * which addresses have accounts.
 */
export function userAccountDirectory(db: Pool): AccountDirectory {
  let decoyHash: Promise<string> | undefined;
  return {
    async authenticate(email, password) {
      if (email.length > 254 || password.length > MAX_PASSWORD_LENGTH) return undefined;
      const user = email ? await findUserByEmail(db, email.trim()) : undefined;
      if (!user) {
        decoyHash ??= hashPassword("decoy password for unknown accounts");
        await verifyPassword(password, await decoyHash);
        return undefined;
      }
      return (await verifyPassword(password, user.passwordHash)) ? { userId: user.userId } : undefined;
    },
    find: (userId) => findUserProfile(db, userId),
  };
}
