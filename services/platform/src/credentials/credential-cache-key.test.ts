import { describe, expect, it } from "vitest";
import { z } from "zod";
import { refuseDevelopmentDefaults } from "../development-defaults.ts";
import { credentialCacheKeyDefaults, credentialCacheKeyVariable } from "./credential-cache-key.ts";

const schema = z
  .object({
    NODE_ENV: z.string().default("development"),
    HOST: z.string().default("127.0.0.1"),
    REDIS_URL: z.string().optional(),
    CREDENTIAL_CACHE_KEY: credentialCacheKeyVariable,
  })
  .superRefine((env, context) => refuseDevelopmentDefaults(env, credentialCacheKeyDefaults(env), context));

describe("CREDENTIAL_CACHE_KEY", () => {
  it("is required in production whenever the process shares a Redis", () => {
    const result = schema.safeParse({ NODE_ENV: "production", REDIS_URL: "redis://redis:6379" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ["CREDENTIAL_CACHE_KEY"], message: expect.stringMatching(/is required when NODE_ENV=production/) });
  });

  it("is required on a non-loopback address whenever the process shares a Redis", () => {
    const result = schema.safeParse({ HOST: "0.0.0.0", REDIS_URL: "redis://redis:6379" });
    expect(result.error?.issues[0]).toMatchObject({
      path: ["CREDENTIAL_CACHE_KEY"],
      message: expect.stringMatching(/is required when HOST=0.0.0.0 is not a loopback address/),
    });
    expect(schema.safeParse({ HOST: "0.0.0.0" }).success).toBe(true);
  });

  it("is optional in development and without Redis (no shared cache), and refused when shorter than 32 characters", () => {
    expect(schema.safeParse({ REDIS_URL: "redis://redis:6379" }).success).toBe(true);
    expect(schema.safeParse({ NODE_ENV: "production" }).success).toBe(true);
    expect(schema.safeParse({ CREDENTIAL_CACHE_KEY: "short" }).success).toBe(false);
    expect(schema.safeParse({ NODE_ENV: "production", REDIS_URL: "redis://r", CREDENTIAL_CACHE_KEY: "k".repeat(32) }).success).toBe(true);
  });
});
