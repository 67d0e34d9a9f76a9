import { parseConfig } from "@svc/platform";
import { describe, expect, it } from "vitest";
import { DEVELOPMENT_ADMIN_TOKEN } from "./admin/admin-token.ts";
import { configSchema } from "./config.ts";

const DATABASE_URL = "postgres://svc:svc@127.0.0.1:5432/svc";

describe("identity configuration", () => {
  it("falls back to the marked development admin token when ADMIN_TOKEN is unset", () => {
    const config = parseConfig(configSchema, { DATABASE_URL });
    expect(config.ADMIN_TOKEN).toBe(DEVELOPMENT_ADMIN_TOKEN);
    expect(config.usingDevelopmentAdminToken).toBe(true);
  });

  it("refuses to start in production without ADMIN_TOKEN, naming it", () => {
    expect(() => parseConfig(configSchema, { DATABASE_URL, NODE_ENV: "production" })).toThrow(/ADMIN_TOKEN: is required when NODE_ENV=production/);
  });

  it("uses a configured ADMIN_TOKEN of at least 32 characters, and refuses a shorter one", () => {
    const token = "a".repeat(32);
    const config = parseConfig(configSchema, {
      DATABASE_URL,
      NODE_ENV: "production",
      ADMIN_TOKEN: token,
      OAUTH_COOKIE_KEYS: "an-oauth-cookie-key-of-at-least-32-characters",
    });
    expect(config.ADMIN_TOKEN).toBe(token);
    expect(config.usingDevelopmentAdminToken).toBe(false);
    expect(() => parseConfig(configSchema, { DATABASE_URL, ADMIN_TOKEN: "a".repeat(31) })).toThrow(/ADMIN_TOKEN: must be at least 32 characters/);
  });

  it("refuses an ADMIN_TOKEN that cannot travel as a Bearer token", () => {
    expect(() => parseConfig(configSchema, { DATABASE_URL, ADMIN_TOKEN: `${"a".repeat(32)} with spaces` })).toThrow(/ADMIN_TOKEN: must be letters, digits/);
  });

  it("serves the admin API on its own port, ADMIN_PORT (default 50056), apart from the gRPC and OAuth ports", () => {
    const config = parseConfig(configSchema, { DATABASE_URL });
    expect(config.ADMIN_PORT).toBe(50056);
    expect(new Set([config.ADMIN_PORT, config.GRPC_PORT, config.OAUTH_PORT]).size).toBe(3);
    expect(parseConfig(configSchema, { DATABASE_URL, ADMIN_PORT: "6000" }).ADMIN_PORT).toBe(6000);
  });

  it("signs OAuth cookies with a random key unless OAUTH_COOKIE_KEYS is set, which production requires", () => {
    const development = parseConfig(configSchema, { DATABASE_URL });
    expect(development.usingEphemeralOAuthCookieKeys).toBe(true);
    expect(development.oauthCookieKeys).toHaveLength(1);
    expect(development.oauthCookieKeys[0]).not.toBe(parseConfig(configSchema, { DATABASE_URL }).oauthCookieKeys[0]);
    const keys = "first-key-first-key-first-key-first-key, second-key-second-key-second-key-second";
    expect(parseConfig(configSchema, { DATABASE_URL, OAUTH_COOKIE_KEYS: keys }).oauthCookieKeys).toEqual([
      "first-key-first-key-first-key-first-key",
      "second-key-second-key-second-key-second",
    ]);
    expect(() => parseConfig(configSchema, { DATABASE_URL, OAUTH_COOKIE_KEYS: "short" })).toThrow(/OAUTH_COOKIE_KEYS: each key must be at least 32 characters/);
    expect(() => parseConfig(configSchema, { DATABASE_URL, NODE_ENV: "production", ADMIN_TOKEN: "a-long-enough-admin-token-of-32-characters" })).toThrow(
      /OAUTH_COOKIE_KEYS: is required when NODE_ENV=production/,
    );
  });

  it("refuses an http PUBLIC_URL unless its host is loopback (the OAuth issuer, URLs and cookie flags come from it)", () => {
    for (const publicUrl of ["http://meet.example.com", "http://10.0.0.5:8080", "http://0.0.0.0:8080"]) {
      expect(() => parseConfig(configSchema, { DATABASE_URL, PUBLIC_URL: publicUrl }), publicUrl).toThrow(
        /PUBLIC_URL: must be https:\/\/ \(plain http is accepted only for a loopback host/,
      );
    }
    for (const publicUrl of ["https://meet.example.com", "http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080"]) {
      expect(parseConfig(configSchema, { DATABASE_URL, PUBLIC_URL: publicUrl }).PUBLIC_URL, publicUrl).toBe(publicUrl);
    }
  });

  it("caps the verification cache at 60 seconds", () => {
    expect(() => parseConfig(configSchema, { DATABASE_URL, CREDENTIAL_CACHE_TTL_SECONDS: "61" })).toThrow(/CREDENTIAL_CACHE_TTL_SECONDS/);
  });
});
