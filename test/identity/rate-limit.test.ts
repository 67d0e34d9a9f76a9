import { createHash, randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { waitFor } from "../support/wait.ts";

const LIMIT = 5;
let first: Tenant;
let second: Tenant;
let redis: Redis;
const fixture = useStack({ env: { RATE_LIMIT_PER_SECOND: String(LIMIT) } });

beforeAll(async () => {
  redis = new Redis(fixture.stack.env.REDIS_URL!);
  [first, second] = [await createTenant(fixture.stack), await createTenant(fixture.stack)];
  // A credential earns its own bucket once identity has verified it (it is then in the shared
  // cache): verify both keys once (this also loads the response checker's OpenAPI document), then
  // let the client address's bucket refill.
  for (const tenant of [first, second]) expect((await auth(tenant.apiKey)).status).toBe(200);
  await addressBucketRefilled();
});
afterAll(async () => {
  redis?.disconnect();
});

/**
 * A bucket is a one-second window whose Redis key expires with it: the client address's bucket is
 * full again once its key is gone (asking the gateway would spend a request of it).
 */
const addressBucketRefilled = () =>
  waitFor(
    async () => (await redis.keys(`${fixture.stack.env.REDIS_KEY_PREFIX}ratelimit*ip:*`)).length === 0,
    5_000,
    "the client address's bucket did not refill",
  );

const auth = (key?: string) => callApi(apiBase(fixture.stack), "POST", "/auth", { key });

describe("rate limiting at the gateway (Redis-backed)", () => {
  it("answers 429 {error} with Retry-After once a credential exceeds its requests per second, without touching other credentials", async () => {
    const burst = await Promise.all(Array.from({ length: LIMIT * 3 }, () => auth(first.apiKey)));
    const statuses = burst.map((response) => response.status);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(LIMIT);
    const limited = burst.filter((response) => response.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(LIMIT * 2);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await limited[0]!.json()).toMatchObject({ error: "Too many requests", requestId: expect.any(String) });
    expect((await auth(second.apiKey)).status).toBe(200);
  });

  it("counts in Redis under the deployment's prefix, keyed by the verified credential's hash", async () => {
    const keys = await redis.keys(`${fixture.stack.env.REDIS_KEY_PREFIX}ratelimit*`);
    const hash = createHash("sha256").update(second.apiKey).digest("hex");
    expect(keys.some((key) => key.endsWith(`cred:${hash}`))).toBe(true);
    expect(keys.join(" ")).not.toContain(second.apiKey);
  });

  it("limits requests without a credential by client address, and lets them through again after the window", async () => {
    const burst = await Promise.all(Array.from({ length: LIMIT * 3 }, () => auth()));
    expect(burst.some((response) => response.status === 429)).toBe(true);
    expect(burst.filter((response) => response.status === 401).length).toBeLessThanOrEqual(LIMIT);
    await addressBucketRefilled();
    expect((await auth()).status).toBe(401);
  });

  it("a made-up Authorization header per request earns no bucket of its own: unverified credentials count against the client address", async () => {
    await addressBucketRefilled();
    const randomToken = () => `svc_${randomBytes(32).toString("base64url")}`;
    const burst = await Promise.all(Array.from({ length: LIMIT * 6 }, () => auth(randomToken())));
    const statuses = burst.map((response) => response.status);
    // On main each random header had a fresh bucket: every request reached identity (401).
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(LIMIT);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(LIMIT * 5);
    // A verified credential keeps its own bucket meanwhile.
    expect((await auth(first.apiKey)).status).toBe(200);
  });

  it("X-Forwarded-For is not trusted without TRUST_PROXY_HOPS: rotating it gives no fresh bucket", async () => {
    await addressBucketRefilled();
    const burst = await Promise.all(
      Array.from({ length: LIMIT * 3 }, (_, index) =>
        callApi(apiBase(fixture.stack), "POST", "/auth", { headers: { "x-forwarded-for": `203.0.113.${index + 1}` } }),
      ),
    );
    expect(burst.filter((response) => response.status === 401).length).toBeLessThanOrEqual(LIMIT);
  });
});
