import { Code, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createLogger, createMemoryCredentialCache, hashToken, SESSION_TOKEN_PREFIX, unauthenticated, type CredentialCache } from "@svc/platform";
import { ManagementService, Role } from "@svc/proto/svc/identity/v1/identity_pb";
import { generateApiKey } from "../credentials/api-key.ts";
import type { CredentialVerification } from "../credentials/verify-credential.ts";
import type { EmbedOriginStore } from "../embedding/embed-origin-store.ts";
import type { OAuthArtifactStore, OAuthClientPolicyStore, OAuthClientStore } from "../oauth-stores.ts";
import { inMemoryAccountStores } from "../in-memory-account-stores.ts";
import type { SessionRecord, SessionStore } from "../sessions/session-store.ts";
import { managementService } from "./management-service.ts";

// The rules of the dashboard's ManagementService for API keys and users, over an in-memory
// transport and in-memory stores: dashboard sessions only, admin-only user management inside
// the session's organization, and what deactivating or re-roling a user does to their
// credentials. OAuth clients and authorized apps are covered by test/dashboard/.

const PASSWORD = "correct horse battery staple";

/** A dependency these rules never reach: touching it fails the test. */
const unreachable = <T extends object>(name: string) =>
  new Proxy({} as T, {
    get: () => {
      throw new Error(`${name} is not used by these rules`);
    },
  });

async function setUp() {
  const accounts = inMemoryAccountStores();
  const orgA = await accounts.organizations.create("A");
  const orgB = await accounts.organizations.create("B");
  const userOf = async (orgId: string, email: string, role: "admin" | "member") => {
    const result = await accounts.users.insert({ orgId, email, passwordHash: "unused", role });
    if (!("userId" in result)) throw new Error(result.problem);
    return {
      sessionId: email.replace("@", "."),
      userId: result.userId,
      orgId,
      role,
      csrfHash: "",
      expiresAt: new Date(Date.now() + 60_000),
    } satisfies SessionRecord;
  };
  const people = {
    admin: await userOf(orgA, "admin@a.example", "admin"),
    member: await userOf(orgA, "member@a.example", "member"),
    outsider: await userOf(orgB, "admin@b.example", "admin"),
  };
  const endedSessionsOf: string[] = [];
  const endedOAuthSessionsOf: string[] = [];
  const sessions: SessionStore = {
    timeouts: { idleSeconds: 60, absoluteSeconds: 3600 },
    create: () => Promise.reject(new Error("not used")),
    async verify(token) {
      const person = Object.values(people).find((candidate) => token === `${SESSION_TOKEN_PREFIX}${candidate.sessionId}`);
      if (!person) throw unauthenticated("Session ended or invalid; sign in again");
      return person;
    },
    end: () => Promise.reject(new Error("not used")),
    endAllOf: async (userId) => void endedSessionsOf.push(userId),
    close: () => undefined,
  };
  const revoked: string[] = [];
  const forgotten: string[] = [];
  const credentials: CredentialVerification = {
    // Any other token is a valid API key: the rule under test is that it is still not a session.
    verify: async () => ({ kind: "api_key", userId: people.admin.userId, orgId: orgA, role: "admin", scopes: [], clientId: "" }),
    revoke: async (tokenHash) => void revoked.push(tokenHash),
  };
  // The organizations' embed origins, as the Postgres store keeps them (one list per organization).
  const originLists = new Map<string, string[]>([
    [orgA, []],
    [orgB, []],
  ]);
  const embedOrigins: EmbedOriginStore = {
    originsOf: async (orgId) => originLists.get(orgId),
    replace: async (orgId, origins) => originLists.has(orgId) && Boolean(originLists.set(orgId, origins)),
  };
  const memoryCache = createMemoryCredentialCache();
  const cache: CredentialCache = { ...memoryCache, forget: async (tokenHash) => void forgotten.push(tokenHash) };
  const transport = createRouterTransport((router) =>
    router.service(
      ManagementService,
      managementService({
        accounts,
        sessions,
        credentials,
        cache,
        clients: unreachable<OAuthClientStore>("clients"),
        // Only the end of a deactivated user's OAuth browser sessions is used here.
        artifacts: { endBrowserSessionsOf: async (userId: string) => (endedOAuthSessionsOf.push(userId), 1) } as unknown as OAuthArtifactStore,
        clientPolicy: unreachable<OAuthClientPolicyStore>("clientPolicy"),
        embedOrigins,
        redirectUriPolicy: { requireHttps: true },
        logger: createLogger("management-service-test", "silent"),
      }),
    ),
  );
  const as = (person: SessionRecord) => ({ headers: { authorization: `Bearer ${SESSION_TOKEN_PREFIX}${person.sessionId}` } });
  const keyOf = async (person: SessionRecord) => {
    const { key, keyHash, displayPrefix } = generateApiKey();
    const record = await accounts.apiKeys.insert({ userId: person.userId, orgId: person.orgId, name: "ci", displayPrefix, keyHash });
    return { key, keyId: record.keyId };
  };
  return {
    management: createClient(ManagementService, transport),
    accounts,
    people,
    as,
    keyOf,
    endedSessionsOf,
    endedOAuthSessionsOf,
    revoked,
    forgotten,
    originLists,
  };
}

describe("who may call", () => {
  it("only a dashboard session: a valid API key is PERMISSION_DENIED, no credential UNAUTHENTICATED", async () => {
    const { management } = await setUp();
    await expect(management.listMyApiKeys({}, { headers: { authorization: "Bearer svc_key_anything" } })).rejects.toMatchObject({
      code: Code.PermissionDenied,
      rawMessage: expect.stringContaining("accepts only a dashboard session"),
    });
    await expect(management.listMyApiKeys({})).rejects.toMatchObject({ code: Code.Unauthenticated });
  });

  it("users are managed by admins: a member is refused", async () => {
    const { management, people, as } = await setUp();
    await expect(management.listOrganizationUsers({}, as(people.member))).rejects.toMatchObject({
      code: Code.PermissionDenied,
      rawMessage: "Only an admin of the organization can do this",
    });
  });
});

describe("API keys", () => {
  it("each user sees and revokes only their own keys; revoking removes the key from the verification cache", async () => {
    const { management, people, as, keyOf, revoked } = await setUp();
    const mine = await keyOf(people.member);
    const theirs = await keyOf(people.admin);
    expect((await management.listMyApiKeys({}, as(people.member))).apiKeys.map((key) => key.keyId)).toEqual([mine.keyId]);
    await expect(management.revokeMyApiKey({ keyId: theirs.keyId }, as(people.member))).rejects.toMatchObject({ code: Code.NotFound });
    expect(revoked).toEqual([]);
    const { apiKey } = await management.revokeMyApiKey({ keyId: mine.keyId }, as(people.member));
    expect(apiKey!.revokedAt).toBeDefined();
    expect(revoked).toEqual([hashToken(mine.key)]);
  });
});

describe("users", () => {
  it("a user created in the dashboard joins the admin's organization, as a member unless told otherwise", async () => {
    const { management, people, as, accounts } = await setUp();
    const { user } = await management.createOrganizationUser({ email: "new@a.example", password: PASSWORD }, as(people.admin));
    expect(user).toMatchObject({ email: "new@a.example", role: Role.MEMBER });
    expect(await accounts.users.findInOrg(people.admin.orgId, user!.userId)).toBeDefined();
  });

  it("another organization's user is NOT_FOUND and unchanged", async () => {
    const { management, people, as, accounts } = await setUp();
    await expect(management.updateOrganizationUser({ userId: people.outsider.userId, deactivated: true }, as(people.admin))).rejects.toMatchObject({
      code: Code.NotFound,
    });
    expect((await accounts.users.findInOrg(people.outsider.orgId, people.outsider.userId))!.deactivatedAt).toBeNull();
  });

  it("an admin cannot demote or deactivate themself", async () => {
    const { management, people, as } = await setUp();
    for (const change of [{ role: Role.MEMBER }, { deactivated: true }]) {
      await expect(management.updateOrganizationUser({ userId: people.admin.userId, ...change }, as(people.admin))).rejects.toMatchObject({
        code: Code.FailedPrecondition,
      });
    }
  });

  it("deactivating ends the user's sessions and revokes their cached credentials; a role change only forgets them", async () => {
    const { management, people, as, keyOf, endedSessionsOf, endedOAuthSessionsOf, revoked, forgotten } = await setUp();
    const { key } = await keyOf(people.member);
    await management.updateOrganizationUser({ userId: people.member.userId, role: Role.ADMIN }, as(people.admin));
    expect({ endedSessionsOf, revoked, forgotten }).toEqual({ endedSessionsOf: [], revoked: [], forgotten: [hashToken(key)] });
    const { user } = await management.updateOrganizationUser({ userId: people.member.userId, deactivated: true }, as(people.admin));
    expect(user!.deactivatedAt).toBeDefined();
    expect(endedSessionsOf).toEqual([people.member.userId]);
    // The OAuth sign-in's browser sessions too, not only the dashboard's.
    expect(endedOAuthSessionsOf).toEqual([people.member.userId]);
    expect(revoked).toEqual([hashToken(key)]);
  });

  it("an update must change something", async () => {
    const { management, people, as } = await setUp();
    await expect(management.updateOrganizationUser({ userId: people.member.userId }, as(people.admin))).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: "nothing to update: give role or deactivated",
    });
  });
});

describe("the sites that may embed the organization's meetings", () => {
  it("an admin sets the list, normalized; it is their organization's only, and a member may neither read nor change it", async () => {
    const { management, people, as, originLists } = await setUp();
    const { embedding } = await management.setMeetingEmbedding({ allowedOrigins: ["https://App.Example.com/", "http://localhost:3000"] }, as(people.admin));
    expect(embedding?.allowedOrigins).toEqual(["https://app.example.com", "http://localhost:3000"]);
    expect((await management.getMeetingEmbedding({}, as(people.admin))).embedding?.allowedOrigins).toEqual([
      "https://app.example.com",
      "http://localhost:3000",
    ]);
    // The other organization's admin sees and changes only their own (empty) list.
    expect((await management.getMeetingEmbedding({}, as(people.outsider))).embedding?.allowedOrigins).toEqual([]);
    await management.setMeetingEmbedding({ allowedOrigins: ["https://b.example"] }, as(people.outsider));
    expect(originLists.get(people.admin.orgId)).toEqual(["https://app.example.com", "http://localhost:3000"]);
    for (const call of [management.getMeetingEmbedding({}, as(people.member)), management.setMeetingEmbedding({ allowedOrigins: [] }, as(people.member))]) {
      await expect(call).rejects.toMatchObject({ code: Code.PermissionDenied });
    }
  });

  it("a list with a refused origin is INVALID_ARGUMENT naming it, and changes nothing", async () => {
    const { management, people, as, originLists } = await setUp();
    await management.setMeetingEmbedding({ allowedOrigins: ["https://kept.example"] }, as(people.admin));
    await expect(management.setMeetingEmbedding({ allowedOrigins: ["https://new.example", "http://plain.example"] }, as(people.admin))).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining('"http://plain.example" must be https'),
    });
    expect(originLists.get(people.admin.orgId)).toEqual(["https://kept.example"]);
  });
});
