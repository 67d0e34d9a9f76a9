import { Code, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { IdentityAdminService, Role } from "@svc/proto/svc/identity/v1/identity_pb";
import { createLogger, hashToken } from "@svc/platform";
import { verifyPassword } from "../credentials/password.ts";
import type { CredentialVerification } from "../credentials/verify-credential.ts";
import { inMemoryAccountStores } from "../in-memory-account-stores.ts";
import { adminService } from "./admin-service.ts";

// The rules of the operator's admin API (organizations, users, API keys) over an in-memory
// transport and in-memory stores. The admin-token gate is in admin-token.test.ts; the Postgres
// stores and the CLI on top are covered by test/identity/.

const PASSWORD = "correct horse battery staple";

function setUp(options: { cacheFails?: boolean } = {}) {
  const accounts = inMemoryAccountStores();
  const revokedHashes: string[] = [];
  const credentials: CredentialVerification = {
    verify: () => Promise.reject(new Error("not used")),
    async revoke(tokenHash) {
      if (options.cacheFails) throw new Error("cache down");
      revokedHashes.push(tokenHash);
    },
  };
  const transport = createRouterTransport((router) =>
    router.service(IdentityAdminService, adminService({ accounts, credentials, logger: createLogger("admin-service-test", "silent") })),
  );
  const admin = createClient(IdentityAdminService, transport);
  const organizationWithUser = async () => {
    const { orgId } = await admin.createOrganization({ name: "Acme" });
    const { userId } = await admin.createUser({ orgId, email: "ops@acme.example", password: PASSWORD });
    return { orgId, userId };
  };
  return { admin, held: accounts.held, revokedHashes, organizationWithUser };
}

describe("CreateOrganization and CreateUser", () => {
  it("creates an organization with a trimmed name, and a user who is an admin unless told otherwise, with only a hash of the password", async () => {
    const { admin, held } = setUp();
    const { orgId } = await admin.createOrganization({ name: "  Acme  " });
    expect(held.organizations.get(orgId)).toBe("Acme");
    const first = await admin.createUser({ orgId, email: " ops@acme.example ", password: PASSWORD });
    const second = await admin.createUser({ orgId, email: "dev@acme.example", password: PASSWORD, role: Role.MEMBER });
    expect(held.users.find((user) => user.userId === first.userId)).toMatchObject({ orgId, email: "ops@acme.example", role: "admin" });
    expect(held.users.find((user) => user.userId === second.userId)!.role).toBe("member");
    const { passwordHash } = held.users[0]!;
    expect(passwordHash).not.toContain(PASSWORD);
    expect(await verifyPassword(PASSWORD, passwordHash)).toBe(true);
  });

  it("names every broken rule of a user in one INVALID_ARGUMENT and stores nothing", async () => {
    const { admin, held } = setUp();
    await expect(admin.createOrganization({ name: " " })).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: "name is required" });
    await expect(admin.createUser({ orgId: "acme", email: "not-an-address", password: "short" })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringMatching(/orgId must be a UUID; email must be an e-mail address; password must be at least \d+ characters/),
    });
    expect(held.users).toEqual([]);
  });

  it("a user of an unknown organization is NOT_FOUND; a second user with the same address is ALREADY_EXISTS", async () => {
    const { admin, organizationWithUser } = setUp();
    const { orgId } = await organizationWithUser();
    await expect(admin.createUser({ orgId: crypto.randomUUID(), email: "x@acme.example", password: PASSWORD })).rejects.toMatchObject({
      code: Code.NotFound,
      rawMessage: "Organization not found",
    });
    await expect(admin.createUser({ orgId, email: "ops@acme.example", password: PASSWORD })).rejects.toMatchObject({ code: Code.AlreadyExists });
  });
});

describe("API keys", () => {
  it("a key belongs to its user's organization; only its hash is stored and the key is answered once", async () => {
    const { admin, held, organizationWithUser } = setUp();
    const { orgId, userId } = await organizationWithUser();
    const { apiKey, key } = await admin.createApiKey({ userId, name: "" });
    expect(apiKey).toMatchObject({ userId, orgId, name: "default", displayPrefix: key.slice(0, apiKey!.displayPrefix.length) });
    expect(held.apiKeys[0]!.keyHash).toBe(hashToken(key));
    const listed = await admin.listApiKeys({ userId });
    expect(listed.apiKeys.map((listedKey) => [listedKey.keyId, Object.values(listedKey).includes(key)])).toEqual([[apiKey!.keyId, false]]);
  });

  it("keys of an unknown user are NOT_FOUND", async () => {
    const { admin } = setUp();
    await expect(admin.createApiKey({ userId: crypto.randomUUID(), name: "ci" })).rejects.toMatchObject({ code: Code.NotFound, rawMessage: "User not found" });
    await expect(admin.listApiKeys({ userId: crypto.randomUUID() })).rejects.toMatchObject({ code: Code.NotFound });
  });

  it("revoking a key marks it revoked and removes it from the verification cache", async () => {
    const { admin, revokedHashes, organizationWithUser } = setUp();
    const { userId } = await organizationWithUser();
    const { apiKey, key } = await admin.createApiKey({ userId, name: "ci" });
    await admin.revokeApiKey({ keyId: apiKey!.keyId });
    expect(revokedHashes).toEqual([hashToken(key)]);
    expect((await admin.listApiKeys({ userId })).apiKeys[0]!.revokedAt).toBeDefined();
    await expect(admin.revokeApiKey({ keyId: crypto.randomUUID() })).rejects.toMatchObject({ code: Code.NotFound, rawMessage: "API key not found" });
  });

  it("when the cache cannot be told, the key is still revoked and the operator is told UNAVAILABLE rather than success", async () => {
    const { admin, organizationWithUser } = setUp({ cacheFails: true });
    const { userId } = await organizationWithUser();
    const { apiKey } = await admin.createApiKey({ userId, name: "ci" });
    await expect(admin.revokeApiKey({ keyId: apiKey!.keyId })).rejects.toMatchObject({ code: Code.Unavailable });
    expect((await admin.listApiKeys({ userId })).apiKeys[0]!.revokedAt).toBeDefined();
  });
});
