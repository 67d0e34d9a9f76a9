import { ConfigError, parseConfig } from "@svc/platform";
import { describe, expect, it } from "vitest";
import { configSchema, DEVELOPMENT_SECRET_KEY } from "./config.ts";

const base = { DATABASE_URL: "postgres://svc:svc@127.0.0.1:5432/svc" };
const parse = (env: Record<string, string>) => parseConfig(configSchema, { ...base, ...env });

describe("webhook configuration", () => {
  it("defaults to the production retry schedule, 15 s timeout, 60 s throttle floor and 5-day disable", () => {
    const config = parse({});
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(15_000);
    expect(config.WEBHOOK_THROTTLED_MIN_DELAY_SECONDS).toBe(60);
    expect(config.WEBHOOK_DISABLE_AFTER_SECONDS).toBe(432_000);
    expect(config.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(config.WEBHOOK_ALLOW_INSECURE).toBe(false);
    expect(config.WEBHOOK_SECRET_ROTATION_GRACE_SECONDS).toBe(86_400);
  });

  it("accepts a compressed schedule with fractions of a second", () => {
    expect(parse({ WEBHOOK_RETRY_SCHEDULE: "0, 0.2,0.5" }).WEBHOOK_RETRY_SCHEDULE).toEqual([0, 0.2, 0.5]);
  });

  it.each(["", "1,,2", "5,-1", "a,b"])("refuses the schedule %j naming WEBHOOK_RETRY_SCHEDULE", (value) => {
    expect(() => parse({ WEBHOOK_RETRY_SCHEDULE: value })).toThrow(/WEBHOOK_RETRY_SCHEDULE: must be/);
  });

  it("uses the marked development key when WEBHOOK_SECRET_KEY is unset", () => {
    const { WEBHOOK_SECRET_KEY } = parse({});
    expect(WEBHOOK_SECRET_KEY.isDevelopmentDefault).toBe(true);
    expect(WEBHOOK_SECRET_KEY.key.toString("base64")).toBe(DEVELOPMENT_SECRET_KEY);
  });

  it("refuses to start in production without WEBHOOK_SECRET_KEY", () => {
    expect(() => parse({ NODE_ENV: "production" })).toThrow(/WEBHOOK_SECRET_KEY: is required when NODE_ENV=production/);
    const key = Buffer.alloc(32, 1).toString("base64");
    expect(parse({ NODE_ENV: "production", WEBHOOK_SECRET_KEY: key }).WEBHOOK_SECRET_KEY).toMatchObject({ isDevelopmentDefault: false });
  });

  it("refuses a key that is not base64 of 32 bytes", () => {
    expect(() => parse({ WEBHOOK_SECRET_KEY: Buffer.alloc(16).toString("base64") })).toThrow(ConfigError);
    expect(() => parse({ WEBHOOK_SECRET_KEY: "not base64!" })).toThrow(/WEBHOOK_SECRET_KEY: must be the base64 of exactly 32 bytes/);
  });

  it("reads the relaxation flags and refuses other spellings", () => {
    expect(parse({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_ALLOW_INSECURE: "1" })).toMatchObject({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: true,
      WEBHOOK_ALLOW_INSECURE: true,
    });
    expect(() => parse({ WEBHOOK_ALLOW_INSECURE: "yes" })).toThrow(/WEBHOOK_ALLOW_INSECURE/);
  });
});
