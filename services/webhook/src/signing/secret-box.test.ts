import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretBox } from "./secret-box.ts";

describe("secret box (AES-256-GCM for signing secrets at rest)", () => {
  const box = createSecretBox(randomBytes(32));

  it("round-trips a secret and never stores it in clear", () => {
    const sealed = box.seal("whsec_c2VjcmV0", "sub-1");
    expect(sealed.includes(Buffer.from("whsec_c2VjcmV0"))).toBe(false);
    expect(box.open(sealed, "sub-1")).toBe("whsec_c2VjcmV0");
  });

  it("uses a fresh IV each time, so sealing the same secret twice differs", () => {
    expect(box.seal("same", "sub-1").equals(box.seal("same", "sub-1"))).toBe(false);
  });

  it("refuses a ciphertext moved to another subscription (bound by associated data)", () => {
    const sealed = box.seal("whsec_x", "sub-1");
    expect(() => box.open(sealed, "sub-2")).toThrow();
  });

  it("refuses a tampered ciphertext and a different key", () => {
    const sealed = box.seal("whsec_x", "sub-1");
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => box.open(tampered, "sub-1")).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, "sub-1")).toThrow();
  });

  it("refuses keys that are not 32 bytes", () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow(/32-byte/);
  });
});
