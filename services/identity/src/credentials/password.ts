import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { identityLimits } from "@svc/platform/contract";

/**
 * scrypt with N=2^15, r=8, p=3: one of OWASP's equivalent minimum settings, chosen over N=2^17
 * because it needs 32 MiB per hash instead of 128 MiB while costing the same CPU.
 * The stored string names its parameters (`scrypt$N=32768,r=8,p=3$<salt>$<hash>`, base64url),
 * so the cost can be raised later without invalidating existing hashes.
 */
const CURRENT = { N: 2 ** 15, r: 8, p: 3 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/**
 * Passwords longer than this (in UTF-16 units) are refused before hashing, so nobody can make us
 * hash megabytes. The rule for new passwords counts code points (identityLimits), and a code
 * point takes at most two units, so every password the rule admits stays within it.
 */
export const MAX_PASSWORD_LENGTH = 2 * identityLimits.passwordMaxLength;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(password, salt, CURRENT, KEY_LENGTH);
  return `scrypt$N=${CURRENT.N},r=${CURRENT.r},p=${CURRENT.p}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** Constant-time check of `password` against a string made by hashPassword; false for anything malformed. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  if (!match || password.length > MAX_PASSWORD_LENGTH) return false;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const expected = Buffer.from(match[5]!, "base64url");
  const actual = await derive(password, Buffer.from(match[4]!, "base64url"), { N, r, p }, expected.length);
  return timingSafeEqual(actual, expected);
}

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }, length: number): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes (32 MiB here), which Node's default ceiling of 32 MiB just
  // fails to admit: allow twice that.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
