import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A new client secret: base64url of 32 random bytes (256 bits). Shown once, never stored. */
export const generateClientSecret = () => randomBytes(32).toString("base64url");

/** What is stored instead of the secret: its SHA-256, hex (a slow hash adds nothing for 256 random bits). */
export const hashClientSecret = (secret: string) => createHash("sha256").update(secret, "utf8").digest("hex");

/** Constant-time check of a presented secret against the stored hash; false for anything malformed. */
export function clientSecretMatches(presented: unknown, storedHash: string): boolean {
  if (typeof presented !== "string" || !/^[0-9a-f]{64}$/.test(storedHash)) return false;
  return timingSafeEqual(Buffer.from(hashClientSecret(presented), "hex"), Buffer.from(storedHash, "hex"));
}
