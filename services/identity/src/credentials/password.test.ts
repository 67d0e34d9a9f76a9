import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./password.ts";

describe("password hashing (scrypt)", () => {
  it("stores a self-describing string with its parameters, a salt and the hash, never the password", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(stored).toMatch(/^scrypt\$N=32768,r=8,p=3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain("correct");
  });

  it("salts every hash, so equal passwords hash differently", async () => {
    expect(await hashPassword("same password")).not.toBe(await hashPassword("same password"));
  });

  it("verifies the right password and refuses a wrong one", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(await verifyPassword("correct horse battery staple", stored)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", stored)).toBe(false);
  });

  it("treats canonically equal Unicode spellings as the same password", async () => {
    const stored = await hashPassword("caf\u00e9-password");
    expect(await verifyPassword("cafe\u0301-password", stored)).toBe(true);
  });

  it("verifies hashes made with other parameters, so the cost can be raised later", async () => {
    const { scryptSync } = await import("node:crypto");
    const salt = Buffer.from("0123456789abcdef");
    const hash = scryptSync("old password", salt, 32, { N: 1024, r: 8, p: 1 });
    const stored = `scrypt$N=1024,r=8,p=1$${salt.toString("base64url")}$${hash.toString("base64url")}`;
    expect(await verifyPassword("old password", stored)).toBe(true);
    expect(await verifyPassword("new password", stored)).toBe(false);
  });

  it("refuses malformed stored strings instead of throwing", async () => {
    expect(await verifyPassword("anything", "plaintext")).toBe(false);
    expect(await verifyPassword("anything", "scrypt$N=1024$abc$def")).toBe(false);
  });
});
