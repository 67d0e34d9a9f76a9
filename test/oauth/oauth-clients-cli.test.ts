import { beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { authorizeRedirect, sha256Hex } from "./support/oauth-app.ts";

describe("admin CLI: oauth-clients create, list and delete (through IdentityAdminService)", () => {
  let tenant: Tenant;
  const fixture = useStack();

  beforeAll(async () => {
    tenant = await createTenant(fixture.stack);
  });

  const create = (...extra: string[]) =>
    fixture.stack.cliRaw("oauth-clients", "create", "--org", tenant.orgId, "--name", "Cal.com", "--redirect-uri", "https://cal.example/callback", ...extra);

  it("create --json prints exactly clientId and the secret, once; only the secret's SHA-256 is stored", async () => {
    const created = await fixture.stack.cli<Record<string, string>>(
      "oauth-clients",
      "create",
      "--org",
      tenant.orgId,
      "--name",
      "Cal.com",
      "--redirect-uri",
      "https://cal.example/callback",
      "--redirect-uri",
      "http://localhost:3000/callback",
      "--scopes",
      "meeting.create webhook.read",
    );
    expect(Object.keys(created).sort()).toEqual(["clientId", "clientSecret"]);
    expect(created.clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { rows } = await fixture.stack.query("SELECT secret_hash, redirect_uris, scopes, name FROM identity.oauth_clients WHERE client_id = $1", [
      created.clientId,
    ]);
    expect(rows).toEqual([
      {
        secret_hash: sha256Hex(created.clientSecret!),
        redirect_uris: ["https://cal.example/callback", "http://localhost:3000/callback"],
        scopes: ["meeting.create", "webhook.read"],
        name: "Cal.com",
      },
    ]);
  });

  it("create without --json says the secret is shown only now", async () => {
    const result = await create("--scopes", "webhook.create");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^OAuth client created: [0-9a-f-]{36}\nclient secret \(shown only now; store it safely\): [A-Za-z0-9_-]{43}\n$/);
  });

  it("list --org shows the organization's clients without any secret", async () => {
    const other = await createTenant(fixture.stack);
    const mine = await fixture.stack.cli<{ clientId: string }>(
      "oauth-clients",
      "create",
      "--org",
      other.orgId,
      "--name",
      "Zapier",
      "--redirect-uri",
      "https://z.example/cb",
      "--scopes",
      "webhook.read,webhook.delete",
    );
    const listed = await fixture.stack.cli<{ clients: Record<string, unknown>[] }>("oauth-clients", "list", "--org", other.orgId);
    expect(listed.clients).toEqual([
      {
        clientId: mine.clientId,
        orgId: other.orgId,
        name: "Zapier",
        redirectUris: ["https://z.example/cb"],
        scopes: ["webhook.read", "webhook.delete"],
        requirePkce: false,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    expect(JSON.stringify(listed)).not.toMatch(/secret/i);
  });

  it.each([
    [["--scopes", "meeting.create calendar.read"], "scopes: unknown calendar.read"],
    [["--scopes", "openid"], "scopes: unknown openid"],
    [["--scopes", "meeting.create", "--redirect-uri", "https://cal.example/cb#fragment"], "must not contain a fragment"],
    [["--scopes", "meeting.create", "--redirect-uri", "/relative/callback"], "must be an absolute http(s) URL"],
    [["--scopes", "meeting.create", "--redirect-uri", "javascript:alert(1)"], "must be an absolute http(s) URL"],
    [["--scopes", "meeting.create", "--redirect-uri", "https://user:pass@cal.example/cb"], "must not contain credentials"],
  ])("create %j is refused: %s", async (extra, message) => {
    const result = await create(...extra);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
  });

  it("create for an unknown organization fails with 'Organization not found'; a missing option is a usage error", async () => {
    const unknown = await fixture.stack.cliRaw(
      "oauth-clients",
      "create",
      "--org",
      "00000000-0000-4000-8000-000000000000",
      "--name",
      "X",
      "--redirect-uri",
      "https://x.example/cb",
      "--scopes",
      "meeting.create",
    );
    expect(unknown).toMatchObject({ code: 1, stderr: "error: Organization not found\n" });
    const usage = await fixture.stack.cliRaw("oauth-clients", "create", "--org", tenant.orgId, "--name", "X", "--scopes", "meeting.create");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("needs --redirect-uri");
  });

  it("delete removes the client (a second delete finds nothing); list --org of an unknown organization fails", async () => {
    const { clientId } = await fixture.stack.cli<{ clientId: string }>(
      "oauth-clients",
      "create",
      "--org",
      tenant.orgId,
      "--name",
      "Temp",
      "--redirect-uri",
      "https://t.example/cb",
      "--scopes",
      "meeting.read",
    );
    expect(await fixture.stack.cli("oauth-clients", "delete", "--client-id", clientId)).toEqual({ clientId, deleted: true });
    const again = await fixture.stack.cliRaw("oauth-clients", "delete", "--client-id", clientId);
    expect(again).toMatchObject({ code: 1, stderr: "error: OAuth client not found\n" });
    const { rowCount } = await fixture.stack.query("SELECT 1 FROM identity.oauth_clients WHERE client_id = $1", [clientId]);
    expect(rowCount).toBe(0);
    const list = await fixture.stack.cliRaw("oauth-clients", "list", "--org", "00000000-0000-4000-8000-000000000000");
    expect(list).toMatchObject({ code: 1, stderr: "error: Organization not found\n" });
  });

  it("create --require-pkce: that client's authorization requests need an S256 code_challenge; other clients' do not", async () => {
    const register = async (...extra: string[]) =>
      (
        await fixture.stack.cli<{ clientId: string }>(
          "oauth-clients",
          "create",
          "--org",
          tenant.orgId,
          "--name",
          "PKCE",
          "--redirect-uri",
          "https://pkce.example/cb",
          "--scopes",
          "meeting.read",
          ...extra,
        )
      ).clientId;
    const strict = await register("--require-pkce");
    const lenient = await register();
    const listed = await fixture.stack.cli<{ clients: { clientId: string; requirePkce: boolean }[] }>("oauth-clients", "list", "--org", tenant.orgId);
    expect(listed.clients.find((client) => client.clientId === strict)?.requirePkce).toBe(true);
    expect(listed.clients.find((client) => client.clientId === lenient)?.requirePkce).toBe(false);

    const authorize = (clientId: string, pkce: Record<string, string> = {}) => authorizeRedirect(fixture.stack, clientId, pkce);
    const challenge = { code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" };
    // Without a challenge: refused, back at the application with invalid_request.
    const refused = await authorize(strict);
    expect(refused.status).toBe(303);
    expect(refused.location.origin + refused.location.pathname).toBe("https://pkce.example/cb");
    expect(refused.location.searchParams.get("error")).toBe("invalid_request");
    expect(refused.location.searchParams.get("error_description")).toMatch(/PKCE/);
    // `plain` is never accepted, from any client.
    expect((await authorize(strict, { code_challenge: challenge.code_challenge, code_challenge_method: "plain" })).location.searchParams.get("error")).toBe(
      "invalid_request",
    );
    // With an S256 challenge it goes on to sign-in; a client registered without the flag may omit it.
    for (const accepted of [await authorize(strict, challenge), await authorize(lenient)]) {
      expect(accepted.status).toBe(303);
      expect(accepted.location.pathname).toMatch(/^\/oauth\/interaction\//);
    }
  });
});
