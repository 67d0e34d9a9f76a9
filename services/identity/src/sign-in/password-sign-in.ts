import type { Pool } from "@svc/platform/db";
import { emailAddressMaxLength } from "@svc/platform/contract";
import { hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from "../credentials/password.ts";
import { findUserByEmail, type UserSignInRecord } from "../db/user-accounts.ts";
import type { SignInThrottle } from "./sign-in-throttle.ts";

export type SignInResult = { outcome: "signed_in"; user: UserSignInRecord } | { outcome: "refused" } | { outcome: "throttled"; retryAfterSeconds: number };

export type PasswordSignIn = (email: string, password: string, clientAddress: string) => Promise<SignInResult>;

/**
 * E-mail and password sign-in, shared by the OAuth sign-in page and the dashboard. A throttled
 * account or address is refused before the password is checked (so the right password does not
 * get through either). An unknown address, a wrong password and a deactivated account get the
 * same answer at the same scrypt cost, and each counts as a failure.
 */
export function createPasswordSignIn(db: Pool, throttle: SignInThrottle): PasswordSignIn {
  let decoyHash: Promise<string> | undefined;
  return async (email, password, clientAddress) => {
    const decision = await throttle.reserve(email, clientAddress);
    if (!decision.allowed) return { outcome: "throttled", retryAfterSeconds: decision.retryAfterSeconds };
    const user = email && email.length <= emailAddressMaxLength && password.length <= MAX_PASSWORD_LENGTH ? await findUserByEmail(db, email.trim()) : undefined;
    let valid = false;
    if (user) valid = await verifyPassword(password, user.passwordHash);
    else {
      decoyHash ??= hashPassword("decoy password for unknown accounts");
      await verifyPassword(password.slice(0, MAX_PASSWORD_LENGTH), await decoyHash);
    }
    // The attempt was counted as a failure when it was reserved; only a success changes that.
    if (!user || !valid || user.deactivated) return { outcome: "refused" };
    await throttle.recordSuccess(email, clientAddress);
    return { outcome: "signed_in", user };
  };
}
