import { spawn } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";

const fixture = useStack();

beforeAll(() => {});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Runs the CLI with exactly this environment (the stack's cli() always passes the right token and address). */
function cliWith(env: Record<string, string>, ...args: string[]) {
  const main = path.resolve(import.meta.dirname, "../../services/identity/src/cli/main.ts");
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["--conditions=source", main, ...args], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("close", (code) => resolve({ code, stderr }));
  });
}

/** Runs a command with --json and checks it printed exactly one JSON object on one line. */
async function json(...args: string[]) {
  const result = await fixture.stack.cliRaw(...args, "--json");
  expect(result.stderr, result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout.endsWith("\n")).toBe(true);
  expect(result.stdout.trimEnd().split("\n")).toHaveLength(1);
  return JSON.parse(result.stdout);
}

/** Runs a command expected to fail: non-zero exit, one line on stderr, nothing on stdout. */
async function failure(...args: string[]) {
  const result = await fixture.stack.cliRaw(...args);
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe("");
  expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  return result.stderr.trim();
}

describe("the admin CLI, each command with --json", () => {
  let orgId: string;
  let userId: string;
  let keyId: string;

  it("orgs create --name prints {orgId}", async () => {
    const output = await json("orgs", "create", "--name", "Acme");
    expect(output).toEqual({ orgId: expect.stringMatching(UUID) });
    orgId = output.orgId;
  });

  it("users create --org --email --password prints {userId} and stores a scrypt hash, not the password", async () => {
    const output = await json("users", "create", "--org", orgId, "--email", "Ada@Example.com", "--password", "correct horse battery");
    expect(output).toEqual({ userId: expect.stringMatching(UUID) });
    userId = output.userId;
    const { rows } = await fixture.stack.query("SELECT email, password_hash FROM identity.users WHERE id = $1", [userId]);
    expect(rows[0]!.email).toBe("Ada@Example.com");
    expect(rows[0]!.password_hash).toMatch(/^scrypt\$N=\d+,r=\d+,p=\d+\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(rows[0]!.password_hash).not.toContain("correct horse");
  });

  it("keys create --user [--name] prints {keyId,key} with an svc_ key of 32 random bytes", async () => {
    const output = await json("keys", "create", "--user", userId, "--name", "ci");
    expect(output).toEqual({ keyId: expect.stringMatching(UUID), key: expect.stringMatching(/^svc_[A-Za-z0-9_-]{43}$/) });
    keyId = output.keyId;
    const unnamed = await json("keys", "create", "--user", userId);
    expect(unnamed.key).not.toBe(output.key);
  });

  it("keys list --user prints {keys:[...]} with names, prefixes and times, never the key", async () => {
    const output = await json("keys", "list", "--user", userId);
    expect(output.keys).toHaveLength(2);
    expect(output.keys[0]).toEqual({
      keyId,
      name: "ci",
      prefix: expect.stringMatching(/^svc_.{8}$/),
      userId,
      orgId,
      createdAt: expect.any(String),
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(output.keys[1].name).toBe("default");
    expect(JSON.stringify(output)).not.toMatch(/svc_[A-Za-z0-9_-]{43}/);
  });

  it("keys revoke --key-id prints {keyId,revoked:true}, and the list then shows when", async () => {
    expect(await json("keys", "revoke", "--key-id", keyId)).toEqual({ keyId, revoked: true });
    const { keys } = await json("keys", "list", "--user", userId);
    expect(keys[0].revokedAt).toEqual(expect.any(String));
    expect(keys[1].revokedAt).toBeNull();
    // Revoking again is harmless and keeps the first revocation time.
    expect(await json("keys", "revoke", "--key-id", keyId)).toEqual({ keyId, revoked: true });
    expect((await json("keys", "list", "--user", userId)).keys[0].revokedAt).toBe(keys[0].revokedAt);
  });

  it("without --json prints words, and the key once with a warning to store it", async () => {
    const result = await fixture.stack.cliRaw("keys", "create", "--user", userId);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^API key created: [0-9a-f-]{36}\nkey \(shown only now; store it safely\): svc_[A-Za-z0-9_-]{43}\n$/);
  });

  it("e-mail addresses are unique regardless of case", async () => {
    const message = await failure("users", "create", "--org", orgId, "--email", "ada@example.COM", "--password", "another password");
    expect(message).toBe("error: A user with this e-mail address already exists");
  });
});

describe("CLI errors: one line on stderr and a non-zero exit", () => {
  it("an unknown command", async () => {
    expect(await failure("orgs", "delete")).toMatch(/^error: unknown command "orgs delete"/);
  });

  it("a missing required option", async () => {
    expect(await failure("users", "create", "--email", "x@example.com", "--password", "password1")).toMatch(/^error: users create needs --org/);
  });

  it("an unknown option", async () => {
    expect(await failure("orgs", "create", "--name", "x", "--colour", "red")).toMatch(/^error: Unknown option '--colour'/);
  });

  it("invalid input, naming every problem", async () => {
    const message = await failure("users", "create", "--org", "not-a-uuid", "--email", "nobody", "--password", "short");
    expect(message).toContain("orgId must be a UUID");
    expect(message).toContain("email must be an e-mail address");
    expect(message).toContain("password must be at least 8 characters");
  });

  it("an unknown organization, user or key", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    expect(await failure("users", "create", "--org", missing, "--email", "a@example.com", "--password", "password1")).toBe("error: Organization not found");
    expect(await failure("keys", "create", "--user", missing)).toBe("error: User not found");
    expect(await failure("keys", "list", "--user", missing)).toBe("error: User not found");
    expect(await failure("keys", "revoke", "--key-id", missing)).toBe("error: API key not found");
  });

  it("a wrong administrator token", async () => {
    const result = await cliWith(
      { SVC_IDENTITY_ADMIN_URL: fixture.stack.urls.identityAdmin, SVC_ADMIN_TOKEN: "wrong-token-wrong-token-wrong-token" },
      "orgs",
      "create",
      "--name",
      "x",
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toBe("error: The administrator token is missing or wrong\n");
  });

  it("an identity admin API that cannot be reached", async () => {
    const result = await cliWith(
      { SVC_IDENTITY_ADMIN_URL: "http://127.0.0.1:9", SVC_ADMIN_TOKEN: fixture.stack.env.ADMIN_TOKEN! },
      "orgs",
      "create",
      "--name",
      "x",
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: cannot reach the identity admin API at http:\/\/127\.0\.0\.1:9: .+\n$/);
  });

  it("the old SVC_IDENTITY_URL (the admin API left the gRPC port), naming its replacement", async () => {
    const result = await cliWith(
      { SVC_IDENTITY_URL: fixture.stack.urls.identity, SVC_ADMIN_TOKEN: fixture.stack.env.ADMIN_TOKEN! },
      "orgs",
      "create",
      "--name",
      "x",
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: SVC_IDENTITY_URL is no longer read: set SVC_IDENTITY_ADMIN_URL .+\n$/);
  });
});
