import { createHmac, randomBytes } from "node:crypto";

/**
 * Signing secrets and signatures of Standard Webhooks (standardwebhooks.com): a secret is
 * `whsec_` + base64 of random bytes, and the signature of a message is
 * `v1,` + base64(HMAC-SHA256(key = the decoded bytes, `${id}.${timestamp}.${body}`)).
 *
 * We sign with node:crypto rather than the `standardwebhooks` package: it is three lines, adds no
 * runtime dependency, and the tests verify our output with that package, so an independent
 * implementation checks ours.
 */
const PREFIX = "whsec_";
const SECRET_BYTES = 32;

export function generateSigningSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/** The HMAC key: the bytes behind the `whsec_` prefix. */
export function signingKey(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error("signing secret must start with whsec_");
  return Buffer.from(secret.slice(PREFIX.length), "base64");
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * Headers for one attempt; each attempt gets a fresh timestamp and so a fresh signature. With
 * several keys (during a rotation's grace window: the new secret first, then the previous) the
 * header carries one `v1,` signature per key, space-separated, as Standard Webhooks defines: a
 * receiver holding either secret verifies the message.
 */
export function signedHeaders(keys: Buffer | readonly Buffer[], messageId: string, body: string, at: Date = new Date()): SignedHeaders {
  const timestamp = Math.floor(at.getTime() / 1000).toString();
  const signatures = (Array.isArray(keys) ? keys : [keys]).map(
    (key: Buffer) => `v1,${createHmac("sha256", key).update(`${messageId}.${timestamp}.${body}`).digest("base64")}`,
  );
  return { "webhook-id": messageId, "webhook-timestamp": timestamp, "webhook-signature": signatures.join(" ") };
}
