import type { Pool } from "@svc/platform/db";
import { findUserProfile } from "../../db/user-accounts.ts";
import type { PasswordSignIn } from "../../sign-in/password-sign-in.ts";
import type { AccountDirectory } from "./interaction-routes.ts";

/**
 * Signs users in with identity's own accounts (e-mail and scrypt password), through the same
 * throttled sign-in as the dashboard.
 */
export function userAccountDirectory(db: Pool, signIn: PasswordSignIn): AccountDirectory {
  return {
    async authenticate(email, password, clientAddress) {
      const result = await signIn(email, password, clientAddress);
      if (result.outcome === "signed_in") return { userId: result.user.userId };
      if (result.outcome === "throttled") return { throttledForSeconds: result.retryAfterSeconds };
      return undefined;
    },
    find: (userId) => findUserProfile(db, userId),
  };
}
