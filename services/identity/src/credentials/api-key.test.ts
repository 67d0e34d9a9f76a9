import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateApiKey, hasApiKeyShape } from "./api-key.ts";

describe("API key generation", () => {
  it("makes svc_ + base64url of 32 random bytes, its SHA-256 and a 12-character display prefix", () => {
    const { key, keyHash, displayPrefix } = generateApiKey();
    expect(key).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(4), "base64url")).toHaveLength(32);
    expect(keyHash).toBe(createHash("sha256").update(key).digest("hex"));
    expect(displayPrefix).toBe(key.slice(0, 12));
  });

  it("never makes the same key twice, nor one that looks like another token kind", () => {
    const keys = Array.from({ length: 2_000 }, () => generateApiKey().key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.filter((key) => key.startsWith("svc_oauth_") || key.startsWith("svc_rt_"))).toEqual([]);
  });

  it("recognises the shape of a key and nothing else", () => {
    expect(hasApiKeyShape(generateApiKey().key)).toBe(true);
    expect(hasApiKeyShape(`svc_${"A".repeat(42)}`)).toBe(false);
    expect(hasApiKeyShape(`svc_${"A".repeat(44)}`)).toBe(false);
    expect(hasApiKeyShape(`svk_${"A".repeat(43)}`)).toBe(false);
    expect(hasApiKeyShape(`svc_${"A".repeat(42)}=`)).toBe(false);
  });
});
