import { ConnectError, Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { validateDisplayName } from "./display-name.ts";

const refusal = (name: string) => {
  try {
    validateDisplayName(name);
  } catch (error) {
    const connectError = ConnectError.from(error);
    expect(connectError.code).toBe(Code.InvalidArgument);
    return connectError.rawMessage;
  }
  throw new Error(`"${name}" was accepted`);
};

describe("validateDisplayName", () => {
  it("trims and keeps names of 1-64 characters, counting code points", () => {
    expect(validateDisplayName("  Ada Lovelace ")).toBe("Ada Lovelace");
    expect(validateDisplayName("😀".repeat(64))).toBe("😀".repeat(64));
    expect(validateDisplayName("<script>alert(1)</script>")).toBe("<script>alert(1)</script>");
  });

  it("refuses empty, too long and multi-line names, naming the field", () => {
    expect(refusal("   ")).toBe("displayName is required");
    expect(refusal("x".repeat(65))).toBe("displayName must be at most 64 characters");
    expect(refusal("Ada\nLovelace")).toMatch(/control characters or line breaks/);
    expect(refusal("Ada\u0000")).toMatch(/control characters/);
    expect(refusal("Ada\u2028Lovelace")).toMatch(/line breaks/);
  });

  it("refuses invisible format characters, so nobody can pass for someone else", () => {
    for (const name of ["Ada\u202eecalevoL", "Ada\u200b", "\u200dAda", "A\u00adda", "Ada\u2066", "Ada\ufeffLovelace"]) {
      expect(refusal(name)).toMatch(/invisible formatting characters/);
    }
    expect(validateDisplayName("Zoë Ådahl")).toBe("Zoë Ådahl");
  });
});
