import { describe, expect, it } from "vitest";
import { csrfTokens } from "./csrf.ts";

describe("per-interaction CSRF tokens", () => {
  const csrf = csrfTokens("a server secret that is long enough");

  it("are valid for their own interaction only", () => {
    const token = csrf.tokenFor("interaction-1");
    expect(csrf.isValid("interaction-1", token)).toBe(true);
    expect(csrf.isValid("interaction-2", token)).toBe(false);
  });

  it("depend on the server secret", () => {
    const other = csrfTokens("another server secret, also long enough");
    expect(other.isValid("interaction-1", csrf.tokenFor("interaction-1"))).toBe(false);
  });

  it("refuse missing, truncated or non-string tokens", () => {
    const token = csrf.tokenFor("interaction-1");
    for (const presented of [undefined, null, "", token.slice(0, -1), `${token}A`, 12]) {
      expect(csrf.isValid("interaction-1", presented)).toBe(false);
    }
  });
});
