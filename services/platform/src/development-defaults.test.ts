import { describe, expect, it } from "vitest";
import { developmentDefaultsRefusal, isLoopbackAddress } from "./development-defaults.ts";

describe("isLoopbackAddress", () => {
  it.each(["127.0.0.1", "127.10.0.1", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "localhost", "LOCALHOST"])("%s is loopback", (host) => {
    expect(isLoopbackAddress(host)).toBe(true);
  });

  it.each(["0.0.0.0", "::", "10.0.0.5", "::ffff:10.0.0.5", "128.0.0.1", "fe80::1", "svc-identity", "localhost.example.com", ""])("%s is not", (host) => {
    expect(isLoopbackAddress(host)).toBe(false);
  });
});

describe("developmentDefaultsRefusal", () => {
  it("allows the development defaults only on loopback outside production", () => {
    expect(developmentDefaultsRefusal({ HOST: "127.0.0.1" })).toBeUndefined();
    expect(developmentDefaultsRefusal({ HOST: "127.0.0.1", NODE_ENV: "test" })).toBeUndefined();
    expect(developmentDefaultsRefusal({ HOST: "127.0.0.1", NODE_ENV: "production" })).toBe("NODE_ENV=production");
    expect(developmentDefaultsRefusal({ HOST: "0.0.0.0" })).toBe("HOST=0.0.0.0 is not a loopback address");
  });
});
