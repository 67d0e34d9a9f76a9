import { describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createSignInThrottle } from "./sign-in-throttle.ts";

const throttle = () =>
  createSignInThrottle({ maxFailuresPerAccount: 3, maxFailuresPerAddress: 5, windowSeconds: 60, keyPrefix: "t:", logger: createLogger("test", "silent") });

describe("sign-in throttle (in-process)", () => {
  it("refuses an account after its allowance of failures, from any address, ignoring the address's case and spaces", async () => {
    const limiter = throttle();
    for (let i = 0; i < 3; i++) {
      expect(await limiter.check("Ada@Example.com", `10.0.0.${i}`)).toEqual({ allowed: true });
      await limiter.recordFailure("Ada@Example.com", `10.0.0.${i}`);
    }
    const refused = await limiter.check(" ada@example.com ", "192.0.2.1");
    expect(refused.allowed).toBe(false);
    expect(refused.allowed === false && refused.retryAfterSeconds).toBeGreaterThan(50);
    expect(await limiter.check("grace@example.com", "192.0.2.1")).toEqual({ allowed: true });
  });

  it("refuses an address after its allowance of failures across accounts", async () => {
    const limiter = throttle();
    for (let i = 0; i < 5; i++) await limiter.recordFailure(`user${i}@example.com`, "198.51.100.7");
    expect((await limiter.check("someone-new@example.com", "198.51.100.7")).allowed).toBe(false);
    expect((await limiter.check("someone-new@example.com", "198.51.100.8")).allowed).toBe(true);
  });

  it("a success clears the account's count", async () => {
    const limiter = throttle();
    await limiter.recordFailure("ada@example.com", "a");
    await limiter.recordFailure("ada@example.com", "b");
    await limiter.recordSuccess("ada@example.com");
    await limiter.recordFailure("ada@example.com", "c");
    await limiter.recordFailure("ada@example.com", "d");
    expect((await limiter.check("ada@example.com", "e")).allowed).toBe(true);
  });
});
