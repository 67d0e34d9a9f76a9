import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createLogger, type Logger } from "@svc/platform";
import { createSignInThrottle, type ThrottleDecision } from "./sign-in-throttle.ts";

const throttle = (overrides: { backoffBaseSeconds?: number; logger?: Logger } = {}) =>
  createSignInThrottle({
    maxFailuresPerAccount: 3,
    maxFailuresPerAddress: 5,
    windowSeconds: 3600,
    backoffBaseSeconds: overrides.backoffBaseSeconds ?? 60,
    backoffMaxSeconds: 900,
    keyPrefix: "t:",
    logger: overrides.logger ?? createLogger("test", "silent"),
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

  it("counts an IPv6 client on its /64: a fresh address in the same /64 is the same client", async () => {
    const limiter = throttle();
    for (let i = 0; i < 5; i++) expect((await limiter.reserve(`user${i}@example.com`, `2001:db8:1:2::${i + 1}`)).allowed).toBe(true);
    expect((await limiter.reserve("someone-new@example.com", "2001:db8:1:2:ffff:ffff:ffff:ffff")).allowed).toBe(false);
    // The next /64 is another client.
    expect((await limiter.reserve("someone-new@example.com", "2001:db8:1:3::1")).allowed).toBe(true);
  });

  it("logs no unsalted hash of the e-mail address: the account is named by a keyed HMAC", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }));
    const limiter = throttle({ logger });
    for (let i = 0; i < 5; i++) await limiter.reserve("ada@example.com", "198.51.100.9");
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; account?: string });
    expect(logged.map((line) => line.msg)).toContain("sign-in throttled");
    const unsalted = createHash("sha256").update("ada@example.com").digest("hex");
    for (const line of logged) {
      expect(line.account).toMatch(/^[0-9a-f]{16}$/);
      expect(unsalted).not.toContain(line.account);
    }
    expect(lines.join("\n")).not.toContain("ada@example.com");
    // One account keeps one name within the process, so its lines can be followed.
    expect(new Set(logged.map((line) => line.account)).size).toBe(1);
  });
});
