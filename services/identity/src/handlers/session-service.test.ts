import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { createLogger, SESSION_TOKEN_PREFIX } from "@svc/platform";
import { Role, SessionService } from "@svc/proto/svc/identity/v1/identity_pb";
import type { CredentialVerification } from "../credentials/verify-credential.ts";
import { inMemoryAccountStores } from "../in-memory-account-stores.ts";
import type { PasswordSignIn, SignInResult } from "../sign-in/password-sign-in.ts";
import type { SessionStore } from "../sessions/session-store.ts";
import { sessionService } from "./session-service.ts";

// The rules of the dashboard's SessionService over an in-memory transport and in-memory stores:
// sign-up creates an organization with its first admin or nothing at all, sign-up can be switched
// off, and sign-in answers the password check's verdict (throttling included). Password hashing,
// the throttle and session expiry are covered by their own tests and test/dashboard/.

const PASSWORD = "correct horse battery staple";

function setUp(options: { signupEnabled?: boolean; signIn?: SignInResult } = {}) {
  const accounts = inMemoryAccountStores();
  const created: { userId: string; orgId: string }[] = [];
  const sessions: SessionStore = {
    timeouts: { idleSeconds: 60, absoluteSeconds: 3600 },
    async create(user) {
      created.push(user);
      return { sessionToken: `${SESSION_TOKEN_PREFIX}${created.length}`, csrfToken: `csrf-${created.length}`, expiresAt: new Date(Date.now() + 3_600_000) };
    },
    verify: () => Promise.reject(new Error("not used")),
    end: () => Promise.reject(new Error("not used")),
    endAllOf: () => Promise.reject(new Error("not used")),
    close: () => undefined,
  };
  const signIn: PasswordSignIn = async () => options.signIn ?? { outcome: "refused" };
  const credentials: CredentialVerification = {
    verify: () => Promise.reject(new Error("not used")),
    revoke: () => Promise.reject(new Error("not used")),
  };
  const transport = createRouterTransport((router) =>
    router.service(
      SessionService,
      sessionService({ accounts, sessions, signIn, credentials, signupEnabled: options.signupEnabled ?? true, logger: createLogger("session-test", "silent") }),
    ),
  );
  return { client: createClient(SessionService, transport), accounts, created };
}

describe("SignUp", () => {
  it("creates the organization with its first admin and answers a session for them", async () => {
    const { client, accounts, created } = setUp();
    const { session } = await client.signUp({ organizationName: "Acme", email: "founder@acme.example", password: PASSWORD });
    expect(session?.sessionToken).toMatch(new RegExp(`^${SESSION_TOKEN_PREFIX}`));
    expect(session?.user).toMatchObject({ email: "founder@acme.example", organizationName: "Acme", role: Role.ADMIN });
    expect([...accounts.held.organizations.values()]).toEqual(["Acme"]);
    expect(accounts.held.users).toMatchObject([{ email: "founder@acme.example", role: "admin", orgId: created[0]!.orgId }]);
    expect(accounts.held.users[0]!.passwordHash).not.toContain(PASSWORD);
  });

  it("refuses a taken e-mail address with ALREADY_EXISTS and leaves no empty organization behind", async () => {
    const { client, accounts } = setUp();
    await client.signUp({ organizationName: "First", email: "taken@example.com", password: PASSWORD });
    await expect(client.signUp({ organizationName: "Second", email: "TAKEN@example.com", password: PASSWORD })).rejects.toMatchObject({
      code: Code.AlreadyExists,
    });
    expect([...accounts.held.organizations.values()]).toEqual(["First"]);
  });

  it("names every bad value in one INVALID_ARGUMENT and stores nothing", async () => {
    const { client, accounts } = setUp();
    await expect(client.signUp({ organizationName: "", email: "not-an-address", password: "short" })).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringMatching(/organizationName.*email.*password/s),
    });
    expect(accounts.held.organizations.size).toBe(0);
  });

  it("is refused with PERMISSION_DENIED when sign-up is switched off", async () => {
    const { client, accounts } = setUp({ signupEnabled: false });
    await expect(client.signUp({ organizationName: "Acme", email: "founder@acme.example", password: PASSWORD })).rejects.toMatchObject({
      code: Code.PermissionDenied,
    });
    expect(accounts.held.users).toEqual([]);
  });
});

describe("SignIn", () => {
  it("answers UNAUTHENTICATED for a refused password and RESOURCE_EXHAUSTED with retry-after when throttled", async () => {
    await expect(setUp({ signIn: { outcome: "refused" } }).client.signIn({ email: "a@example.com", password: "x" })).rejects.toMatchObject({
      code: Code.Unauthenticated,
    });
    const throttled = await setUp({ signIn: { outcome: "throttled", retryAfterSeconds: 42 } })
      .client.signIn({ email: "a@example.com", password: "x" })
      .then(
        () => undefined,
        (caught: unknown) => ConnectError.from(caught),
      );
    expect(throttled?.code).toBe(Code.ResourceExhausted);
    expect(throttled?.metadata.get("retry-after")).toBe("42");
  });
});
