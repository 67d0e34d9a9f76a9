import { randomUUID } from "node:crypto";
import { createLogger, hashToken } from "@svc/platform";
import { errors, type Grant } from "oidc-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgOAuthArtifactStore } from "../../services/identity/src/db/pg-oauth-artifact-store.ts";
import { pgOAuthClientPolicyStore } from "../../services/identity/src/db/pg-oauth-client-policy-store.ts";
import { ALLOW_LIST_MAX_CLIENTS } from "../../services/identity/src/oauth-stores.ts";
import { assertOrganizationAllowsGrant, REFUSED_BY_ORGANIZATION } from "../../services/identity/src/oauth/provider/organization-client-policy.ts";
import { createServiceDatabase, type ServiceDatabase } from "../support/service-database.ts";

// Issue 33, finding 4: an organization's admin restricts which other organizations' OAuth clients
// its members may authorize. The queries against the real identity schema; the end-to-end flow is
// test/oauth/client-allow-list.test.ts.
let database: ServiceDatabase;
beforeAll(async () => {
  database = await createServiceDatabase("identity", createLogger("test", "silent"));
});
afterAll(async () => database?.drop());

const organization = async (name: string) => {
  const orgId = randomUUID();
  await database.pool.query("INSERT INTO organizations (id, name) VALUES ($1, $2)", [orgId, name]);
  const userId = randomUUID();
  await database.pool.query("INSERT INTO users (id, org_id, email, password_hash) VALUES ($1, $2, $3, 'x')", [userId, orgId, `${userId}@example.com`]);
  return { orgId, userId };
};
const client = async (orgId: string, name: string) => {
  const clientId = randomUUID();
  await database.pool.query(
    "INSERT INTO oauth_clients (client_id, org_id, name, redirect_uris, scopes, secret_hash) VALUES ($1, $2, $3, '{https://app.example/cb}', '{meeting.create}', $4)",
    [clientId, orgId, name, "0".repeat(64)],
  );
  return clientId;
};
/** A grant of `userId` for `clientId` with one access token, as the artifact adapter stores them. */
const grant = async (userId: string, clientId: string) => {
  const artifacts = pgOAuthArtifactStore(database.pool);
  const grantId = randomUUID();
  const token = `svc_oauth_${randomUUID()}`;
  await artifacts.upsert("Grant", hashToken(grantId), { accountId: userId, clientId }, { grantId, clientId }, 3600);
  await artifacts.upsert("AccessToken", hashToken(token), { accountId: userId, clientId, grantId }, { grantId, clientId }, 3600);
  return { grantId, tokenHash: hashToken(token) };
};
const grantExists = async (grantId: string) =>
  (await database.pool.query("SELECT 1 FROM oauth_artifacts WHERE model = 'Grant' AND grant_id = $1", [grantId])).rowCount === 1;

describe("an organization's OAuth client policy (identity.oauth_client_allow_list)", () => {
  it("`all` (the default) allows any organization's client; `listed` only listed ones and, always, the organization's own", async () => {
    const policy = pgOAuthClientPolicyStore(database.pool);
    const members = await organization("Members Inc");
    const vendor = await organization("Vendor");
    const own = await client(members.orgId, "Own app");
    const listed = await client(vendor.orgId, "Listed app");
    const unlisted = await client(vendor.orgId, "Unlisted app");

    expect(await policy.policyOf(members.orgId)).toEqual({ mode: "all", allowedClients: [] });
    for (const clientId of [own, listed, unlisted]) expect(await policy.allows(members.orgId, clientId)).toBe(true);

    expect(await policy.allow(members.orgId, listed, members.userId)).toBe("listed");
    expect(await policy.allow(members.orgId, listed, members.userId)).toBe("listed"); // again: no change
    await policy.setMode(members.orgId, "listed");
    expect(await policy.allows(members.orgId, own)).toBe(true);
    expect(await policy.allows(members.orgId, listed)).toBe(true);
    expect(await policy.allows(members.orgId, unlisted)).toBe(false);
    expect(await policy.allows(members.orgId, randomUUID())).toBe(false);
    // The vendor's own policy is untouched by the members' list.
    expect(await policy.allows(vendor.orgId, unlisted)).toBe(true);
    expect(await policy.policyOf(members.orgId)).toEqual({
      mode: "listed",
      allowedClients: [{ clientId: listed, name: "Listed app", organizationName: "Vendor", addedAt: expect.any(Date) }],
    });
    expect(await policy.policyOf(vendor.orgId)).toEqual({ mode: "all", allowedClients: [] });
  });

  it("listing refuses an unknown client and the organization's own, and holds at most the maximum", async () => {
    const policy = pgOAuthClientPolicyStore(database.pool);
    const members = await organization("Busy");
    const vendor = await organization("Many apps");
    expect(await policy.allow(members.orgId, randomUUID(), members.userId)).toBe("unknown-client");
    expect(await policy.allow(members.orgId, await client(members.orgId, "Own"), members.userId)).toBe("own-client");
    for (let index = 0; index < ALLOW_LIST_MAX_CLIENTS; index++) {
      expect(await policy.allow(members.orgId, await client(vendor.orgId, `App ${index}`), members.userId)).toBe("listed");
    }
    expect(await policy.allow(members.orgId, await client(vendor.orgId, "One too many"), members.userId)).toBe("list-full");
    expect((await policy.policyOf(members.orgId))!.allowedClients).toHaveLength(ALLOW_LIST_MAX_CLIENTS);
  });

  it("switching to `listed` ends members' grants of unlisted clients (codes and tokens too), and keeps listed, own and other organizations' grants", async () => {
    const policy = pgOAuthClientPolicyStore(database.pool);
    const members = await organization("Strict");
    const vendor = await organization("Vendor two");
    const bystander = await organization("Bystander");
    const [own, listed, unlisted] = [await client(members.orgId, "Own"), await client(vendor.orgId, "Listed"), await client(vendor.orgId, "Unlisted")];
    await policy.allow(members.orgId, listed, members.userId);
    const grants = {
      own: await grant(members.userId, own),
      listed: await grant(members.userId, listed),
      unlisted: await grant(members.userId, unlisted),
      bystanders: await grant(bystander.userId, unlisted),
    };

    // While the policy is `all`, removing a listed client ends nothing.
    const kept = await client(vendor.orgId, "Kept");
    await policy.allow(members.orgId, kept, members.userId);
    const keptGrant = await grant(members.userId, kept);
    expect(await policy.disallow(members.orgId, kept)).toEqual({ revokedAccessTokens: [] });
    expect(await grantExists(keptGrant.grantId)).toBe(true);

    const switched = await policy.setMode(members.orgId, "listed");
    expect(switched!.revokedAccessTokens.sort()).toEqual([grants.unlisted.tokenHash, keptGrant.tokenHash].sort());
    expect(await grantExists(grants.unlisted.grantId)).toBe(false);
    expect(await grantExists(keptGrant.grantId)).toBe(false);
    for (const survivor of [grants.own, grants.listed, grants.bystanders]) expect(await grantExists(survivor.grantId)).toBe(true);

    // With `listed`, taking a client off the list ends its grants.
    expect(await policy.disallow(members.orgId, listed)).toEqual({ revokedAccessTokens: [grants.listed.tokenHash] });
    expect(await grantExists(grants.listed.grantId)).toBe(false);
    expect(await grantExists(grants.own.grantId)).toBe(true);
    expect(await policy.disallow(members.orgId, listed)).toBeUndefined();
  });

  it("another organization's id changes nothing: setMode and disallow are confined to the organization given", async () => {
    const policy = pgOAuthClientPolicyStore(database.pool);
    const first = await organization("First");
    const second = await organization("Second");
    const vendor = await organization("Vendor three");
    const app = await client(vendor.orgId, "App");
    await policy.allow(first.orgId, app, first.userId);
    expect(await policy.disallow(second.orgId, app)).toBeUndefined();
    expect((await policy.policyOf(first.orgId))!.allowedClients.map((entry) => entry.clientId)).toEqual([app]);
    expect(await policy.setMode(randomUUID(), "listed")).toBeUndefined();
  });
});

describe("the grant path's check (loadExistingGrant)", () => {
  const fakeGrant = (accountId: string, clientId: string) => {
    const destroyed: string[] = [];
    return { grant: { accountId, clientId, destroy: async () => void destroyed.push(clientId) } as unknown as Grant, destroyed };
  };

  it("refuses a grant the user's organization does not allow: access_denied with a description, and the grant deleted", async () => {
    const { grant: refused, destroyed } = fakeGrant("user-1", "client-x");
    const error = await assertOrganizationAllowsGrant(refused, async () => "org-1", { allows: async () => false }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(errors.AccessDenied);
    expect(error).toMatchObject({ error: "access_denied", error_description: REFUSED_BY_ORGANIZATION });
    expect(destroyed).toEqual(["client-x"]);
  });

  it("lets an allowed grant through untouched", async () => {
    const { grant: allowed, destroyed } = fakeGrant("user-1", "client-y");
    const asked: string[] = [];
    await assertOrganizationAllowsGrant(allowed, async () => "org-1", {
      allows: async (orgId, clientId) => (asked.push(`${orgId}/${clientId}`), true),
    });
    expect(asked).toEqual(["org-1/client-y"]);
    expect(destroyed).toEqual([]);
  });
});
