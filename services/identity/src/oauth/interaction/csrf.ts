import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Per-interaction CSRF tokens for the sign-in and consent forms: an HMAC of the interaction's
 * uid under a server secret, so no state is stored and a token is good for one interaction only.
 * This backs up the interaction cookie being SameSite=Lax (a cross-site POST carries no cookie).
 */
export function csrfTokens(secret: string) {
  const tokenFor = (interactionUid: string) => createHmac("sha256", secret).update(`csrf:${interactionUid}`).digest("base64url");
  return {
    tokenFor,
    isValid(interactionUid: string, presented: unknown): boolean {
      if (typeof presented !== "string") return false;
      const expected = Buffer.from(tokenFor(interactionUid));
      const actual = Buffer.from(presented);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}

export type CsrfTokens = ReturnType<typeof csrfTokens>;
