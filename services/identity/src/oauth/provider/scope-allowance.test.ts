import { errors } from "oidc-provider";
import { describe, expect, it } from "vitest";
import { assertScopesAllowed } from "./scope-allowance.ts";

describe("assertScopesAllowed", () => {
  const allowed = ["meeting.create", "webhook.read"];

  it("accepts any subset of the allowance, in any order, with repeated spaces", () => {
    expect(() => assertScopesAllowed("webhook.read  meeting.create", allowed)).not.toThrow();
    expect(() => assertScopesAllowed("meeting.create", allowed)).not.toThrow();
  });

  it("refuses a scope outside the allowance with invalid_scope naming it", () => {
    const refuse = () => assertScopesAllowed("meeting.create webhook.delete openid", allowed);
    expect(refuse).toThrow(errors.InvalidScope);
    expect(refuse).toThrow(expect.objectContaining({ error: "invalid_scope", scope: "webhook.delete openid" }));
  });

  it("refuses a missing or empty scope with invalid_request", () => {
    for (const scope of [undefined, "", "   "]) {
      expect(() => assertScopesAllowed(scope, allowed)).toThrow(expect.objectContaining({ error: "invalid_request" }));
    }
  });
});
