import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Signing secrets are needed in clear to sign, so they are stored encrypted, not hashed:
 * AES-256-GCM with a key from configuration. The stored form is
 * `version (1 byte) | IV (12) | auth tag (16) | ciphertext`. The subscription id is bound in as
 * additional authenticated data, so a ciphertext copied onto another row does not decrypt.
 */
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  seal(plaintext: string, boundTo: string): Buffer;
  open(sealed: Buffer, boundTo: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error("AES-256-GCM needs a 32-byte key");
  return {
    seal(plaintext, boundTo) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(boundTo, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), ciphertext]);
    },
    open(sealed, boundTo) {
      if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) throw new Error("unrecognised sealed secret");
      const iv = sealed.subarray(1, 1 + IV_BYTES);
      const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAAD(Buffer.from(boundTo, "utf8"));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    },
  };
}
