import { Code, ConnectError, createContextValues, type HandlerContext } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { requireAdminToken } from "./admin-token.ts";

const contextWith = (authorization?: string) =>
  ({
    requestHeader: new Headers(authorization === undefined ? {} : { authorization }),
    values: createContextValues(),
  }) as unknown as HandlerContext;

const outcome = (run: () => void) => {
  try {
    run();
    return "admitted";
  } catch (error) {
    return ConnectError.from(error).code === Code.Unauthenticated ? "unauthenticated" : "other";
  }
};

describe("the administrator token gate", () => {
  const gate = requireAdminToken("the-admin-token-0123456789");

  it("admits the exact token, with the scheme name in any case", () => {
    expect(outcome(() => gate(contextWith("Bearer the-admin-token-0123456789")))).toBe("admitted");
    expect(outcome(() => gate(contextWith("bearer the-admin-token-0123456789")))).toBe("admitted");
  });

  it("refuses a missing header, another scheme, a prefix, an extension and an empty token", () => {
    for (const header of [undefined, "Basic the-admin-token-0123456789", "Bearer the-admin-token", "Bearer the-admin-token-01234567890", "Bearer "]) {
      expect(outcome(() => gate(contextWith(header)))).toBe("unauthenticated");
    }
  });
});
