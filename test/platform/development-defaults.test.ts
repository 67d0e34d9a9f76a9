// The public development defaults (well-known keys and tokens committed in the code, so `npm start`
// works with nothing configured) are refused whenever a process listens on a non-loopback address,
// not only with NODE_ENV=production: a developer's `HOST=0.0.0.0` must not expose them.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configSchema as gatewaySchema } from "../../gateway/src/config.ts";
import { configSchema as identitySchema } from "../../services/identity/src/config.ts";
import { configSchema as meetingSchema } from "../../services/meeting/src/config.ts";
import { configSchema as webhookSchema } from "../../services/webhook/src/config.ts";

const root = path.resolve(import.meta.dirname, "../..");
// Nothing listens there: the configuration must stop the process before anything is connected.
const base = { DATABASE_URL: "postgres://svc@127.0.0.1:1/svc", REDIS_URL: "redis://127.0.0.1:1" };
// Should a process get past its configuration, it binds only ports the kernel picks, never a default one.
const anyFreePort = { PORT: "0", GRPC_PORT: "0", INTERNAL_GRPC_PORT: "0", OAUTH_PORT: "0", ADMIN_PORT: "0", LIVEKIT_WEBHOOK_PORT: "0" };

/** Each process, where it starts, its schema, and every variable whose development default it would use. */
const processes = {
  identity: { dir: "services/identity", schema: identitySchema, defaults: ["ADMIN_TOKEN", "OAUTH_COOKIE_KEYS", "CREDENTIAL_CACHE_KEY"] },
  meeting: { dir: "services/meeting", schema: meetingSchema, defaults: ["LIVEKIT_API_KEY", "CREDENTIAL_CACHE_KEY"] },
  webhook: { dir: "services/webhook", schema: webhookSchema, defaults: ["WEBHOOK_SECRET_KEY", "CREDENTIAL_CACHE_KEY"] },
  gateway: { dir: "gateway", schema: gatewaySchema, defaults: ["CREDENTIAL_CACHE_KEY"] },
} as const;

/** Real values for every development default (what a deployment supplies). */
const realSecrets = {
  ADMIN_TOKEN: "a-real-admin-token-of-at-least-32-characters",
  OAUTH_COOKIE_KEYS: "a-real-oauth-cookie-key-of-at-least-32-characters",
  CREDENTIAL_CACHE_KEY: "a-real-credential-cache-key-of-at-least-32-characters",
  LIVEKIT_API_KEY: "real-livekit-key",
  LIVEKIT_API_SECRET: "a-real-livekit-secret-of-at-least-32-characters",
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 3).toString("base64"),
};

const problemsOf = (schema: (typeof processes)[keyof typeof processes]["schema"], env: Record<string, string>) => {
  const result = schema.safeParse(env);
  return result.success ? [] : result.error.issues.map((issue) => String(issue.path[0]));
};

describe.each(Object.entries(processes))("%s with a development default", (name, { dir, schema, defaults }) => {
  it("stops at start on HOST=0.0.0.0 without NODE_ENV=production, naming every such variable", () => {
    const result = spawnSync(process.execPath, ["--conditions=source", "src/main.ts"], {
      cwd: path.join(root, dir),
      env: { PATH: process.env.PATH, ...base, ...anyFreePort, HOST: "0.0.0.0" },
      encoding: "utf8",
      timeout: 20_000,
      killSignal: "SIGKILL",
    });
    expect(result.status, result.stderr).toBe(78);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${name}: invalid configuration: `));
    for (const variable of defaults) expect(lines[0]).toMatch(new RegExp(`${variable}: .*HOST=0\\.0\\.0\\.0 is not a loopback address`));
  });

  it.each(["0.0.0.0", "::", "10.1.2.3", "pod.example.internal"])("is refused on HOST=%s", (host) => {
    expect(problemsOf(schema, { ...base, HOST: host }).sort()).toEqual([...defaults].sort());
  });

  it.each(["127.0.0.1", "127.0.0.2", "::1", "localhost"])("is allowed on the loopback address %s (npm start, tests)", (host) => {
    expect(problemsOf(schema, { ...base, HOST: host })).toEqual([]);
  });

  it("is refused with NODE_ENV=production on loopback too", () => {
    expect(problemsOf(schema, { ...base, NODE_ENV: "production" }).sort()).toEqual([...defaults].sort());
  });

  it("starts on a non-loopback address once every one is set", () => {
    expect(problemsOf(schema, { ...base, HOST: "0.0.0.0", ...realSecrets })).toEqual([]);
  });
});
