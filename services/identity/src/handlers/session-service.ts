import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import { notFound, unauthenticated, type Logger } from "@svc/platform";
import { errorMetadata, identityLimits } from "@svc/platform/contract";
import { Role, type SessionService } from "@svc/proto/svc/identity/v1/identity_pb";
import { RequestCheck } from "../admin/admin-requests.ts";
import { hashPassword } from "../credentials/password.ts";
import type { CredentialVerification } from "../credentials/verify-credential.ts";
import type { AccountStores } from "../account-stores.ts";
import { throttledMessage } from "../oauth/interaction/interaction-routes.ts";
import type { PasswordSignIn } from "../sign-in/password-sign-in.ts";
import { bearerTokenOf, requireSession } from "../sessions/session-caller.ts";
import type { NewSession, SessionStore } from "../sessions/session-store.ts";

export interface SessionServiceDependencies {
  accounts: Pick<AccountStores, "organizations" | "users">;
  sessions: SessionStore;
  signIn: PasswordSignIn;
  credentials: CredentialVerification;
  signupEnabled: boolean;
  logger: Logger;
}

export const roleMessage = (role: "admin" | "member") => (role === "admin" ? Role.ADMIN : Role.MEMBER);

/** svc.identity.v1.SessionService: sign-in, sign-up, sign-out of the developer dashboard. */
export function sessionService(deps: SessionServiceDependencies): ServiceImpl<typeof SessionService> {
  const { accounts, sessions, logger } = deps;

  const sessionMessage = async (userId: string, session: NewSession) => {
    const profile = await accounts.users.profile(userId);
    if (!profile) throw notFound("User");
    return {
      sessionToken: session.sessionToken,
      csrfToken: session.csrfToken,
      expiresAt: timestampFromDate(session.expiresAt),
      idleTimeoutSeconds: sessions.timeouts.idleSeconds,
      user: { ...profile, role: roleMessage(profile.role) },
    };
  };

  return {
    async signIn(request) {
      const result = await deps.signIn(request.email, request.password, request.clientAddress);
      if (result.outcome === "throttled") {
        throw new ConnectError(throttledMessage(result.retryAfterSeconds), Code.ResourceExhausted, {
          [errorMetadata.retryAfter]: String(result.retryAfterSeconds),
        });
      }
      if (result.outcome === "refused") throw unauthenticated("The e-mail address or password is incorrect.");
      const session = await sessions.create(result.user);
      logger.info({ userId: result.user.userId, orgId: result.user.orgId }, "dashboard sign-in");
      return { session: await sessionMessage(result.user.userId, session) };
    },

    async signUp(request) {
      if (!deps.signupEnabled) throw new ConnectError("Sign-up is disabled on this installation; ask an operator for an account", Code.PermissionDenied);
      const check = new RequestCheck();
      const organizationName = check.name("organizationName", request.organizationName, identityLimits.organizationNameMaxLength);
      const email = check.email("email", request.email);
      const password = check.password("password", request.password);
      check.done();
      const passwordHash = await hashPassword(password);
      const created = await accounts.organizations.createWithAdmin({ name: organizationName, email, passwordHash });
      if (created === "email-taken") throw new ConnectError("A user with this e-mail address already exists", Code.AlreadyExists);
      logger.info(created, "organization signed up");
      const session = await sessions.create(created);
      return { session: await sessionMessage(created.userId, session) };
    },

    async signOut(_request, context) {
      const session = await requireSession(context, sessions, deps.credentials);
      await sessions.end(bearerTokenOf(context)!);
      logger.info({ userId: session.userId }, "dashboard sign-out");
      return {};
    },

    async getSession(_request, context) {
      const session = await requireSession(context, sessions, deps.credentials);
      const profile = await accounts.users.profile(session.userId);
      if (!profile) throw unauthenticated();
      return { user: { ...profile, role: roleMessage(profile.role) }, expiresAt: timestampFromDate(session.expiresAt) };
    },
  };
}
