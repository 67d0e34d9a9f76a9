import { describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createSignInThrottle, type ThrottleDecision } from "./sign-in-throttle.ts";

const throttle = (overrides: { backoffBaseSeconds?: number } = {}) =>
  createSignInThrottle({
    maxFailuresPerAccount: 3,
    maxFailuresPerAddress: 5,
    windowSeconds: 3600,
    backoffBaseSeconds: overrides.backoffBaseSeconds ?? 60,
    backoffMaxSeconds: 900,
    keyPrefix: "t:",
    logger: createLogger("test", "silent"),
  });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const retryAfter = (decision: ThrottleDecision) => (decision.allowed ? 0 : decision.retryAfterSeconds);

describe("sign-in throttle (in-process)", () => {
  it("lets an account's allowance of failed attempts through, then refuses it from any address, ignoring the address's case and spaces", async () => {
    const limiter = throttle();
    for (let i = 0; i < 3; i++) expect(await limiter.reserve("Ada@Example.com", `10.0.0.${i}`)).toEqual({ allowed: true });
    const refused = await limiter.reserve(" ada@example.com ", "192.0.2.1");
    expect(refused.allowed).toBe(false);
    expect(retryAfter(refused)).toBeGreaterThan(50);
    expect(await limiter.reserve("grace@example.com", "192.0.2.1")).toEqual({ allowed: true });
  });

  it("backs off exponentially: after the allowance, one attempt per period, and each failure doubles the period", async () => {
    const limiter = throttle({ backoffBaseSeconds: 1 });
    const waits: number[] = [];
    for (let i = 0; i < 2; i++) expect((await limiter.reserve("ada@example.com", "a")).allowed).toBe(true);
    for (let period = 0; period < 2; period++) {
      // The attempt that uses up the allowance (or ends a period) gets through and starts the next period...
      expect((await limiter.reserve("ada@example.com", "a")).allowed).toBe(true);
      // ...during which every attempt is refused, with the time left.
      const refused = await limiter.reserve("ada@example.com", "a");
      waits.push(retryAfter(refused));
      await sleep(retryAfter(refused) * 1000 + 50);
    }
    expect(waits).toEqual([1, 2]);
    expect((await limiter.reserve("ada@example.com", "a")).allowed).toBe(true);
    expect(retryAfter(await limiter.reserve("ada@example.com", "a"))).toBe(4);
  });

  it("counts attempts before their passwords are checked: a parallel burst gets only the allowance through", async () => {
    const limiter = throttle();
    const burst = await Promise.all(Array.from({ length: 50 }, (_, i) => limiter.reserve("ada@example.com", `198.51.100.${i}`)));
    expect(burst.filter((decision) => decision.allowed)).toHaveLength(3);
  });

  it("refuses an address after its allowance of failures across accounts", async () => {
    const limiter = throttle();
    for (let i = 0; i < 5; i++) expect((await limiter.reserve(`user${i}@example.com`, "198.51.100.7")).allowed).toBe(true);
    expect((await limiter.reserve("someone-new@example.com", "198.51.100.7")).allowed).toBe(false);
    expect((await limiter.reserve("someone-new@example.com", "198.51.100.8")).allowed).toBe(true);
  });

  it("a success forgets the account's failures, but gives back only its own attempt to the address", async () => {
    const limiter = throttle();
    await limiter.reserve("ada@example.com", "a");
    await limiter.reserve("ada@example.com", "b");
    await limiter.reserve("ada@example.com", "c");
    await limiter.recordSuccess("ada@example.com", "c");
    for (let i = 0; i < 3; i++) expect((await limiter.reserve("ada@example.com", "d")).allowed).toBe(true);
    // Address "e": three failures against other accounts and a success of its own leave two attempts of its allowance of five.
    for (let i = 0; i < 3; i++) await limiter.reserve(`other${i}@example.com`, "e");
    await limiter.reserve("grace@example.com", "e");
    await limiter.recordSuccess("grace@example.com", "e");
    expect((await limiter.reserve("other8@example.com", "e")).allowed).toBe(true);
    expect((await limiter.reserve("other9@example.com", "e")).allowed).toBe(true);
    expect((await limiter.reserve("other10@example.com", "e")).allowed).toBe(false);
  });
});
