import { describe, expect, it } from "vitest";
import { clientSecretMatches, generateClientSecret, hashClientSecret } from "./client-secret.ts";

describe("client secrets", () => {
  it("are 256 random bits in base64url, different every time", () => {
    const secrets = new Set(Array.from({ length: 50 }, generateClientSecret));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("are stored as their SHA-256 (hex) and match only the same secret", () => {
    const secret = generateClientSecret();
    const stored = hashClientSecret(secret);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain(secret);
    expect(clientSecretMatches(secret, stored)).toBe(true);
    expect(clientSecretMatches(`${secret}x`, stored)).toBe(false);
    expect(clientSecretMatches(secret.slice(1), stored)).toBe(false);
    expect(clientSecretMatches(stored, stored)).toBe(false); // the hash itself is not a secret that works
  });

  it("never match anything when the presented value or the stored hash is malformed", () => {
    expect(clientSecretMatches(undefined, hashClientSecret("a"))).toBe(false);
    expect(clientSecretMatches(42, hashClientSecret("a"))).toBe(false);
    expect(clientSecretMatches("a", "not-a-hash")).toBe(false);
    expect(clientSecretMatches("", "")).toBe(false);
  });
});
