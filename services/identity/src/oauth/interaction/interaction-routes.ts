import type { Middleware, ParameterizedContext } from "koa";
import type Provider from "oidc-provider";
import type { Interaction } from "oidc-provider";
import type { Logger } from "@svc/platform";
import type { CsrfTokens } from "./csrf.ts";
import type { InteractionSignInAttempts } from "./sign-in-attempts.ts";
import { consentPage, errorPage, loginPage, PAGE_HEADERS } from "./pages.ts";
import { OAUTH_PATHS } from "@svc/platform/contract";
import { parseScopeParameter, SCOPE_DESCRIPTIONS, isKnownScope } from "../provider/scopes.ts";

/** The users the authorization server signs in: identity's own, with their scrypt passwords. */
export interface AccountDirectory {
  /**
   * The user with this e-mail address and password, undefined (same answer for either mistake),
   * or how long the account or address is throttled for.
   */
  authenticate(email: string, password: string, clientAddress: string): Promise<{ userId: string } | { throttledForSeconds: number } | undefined>;
  find(userId: string): Promise<{ userId: string; orgId: string; email: string } | undefined>;
}

export interface InteractionDependencies {
  provider: Provider;
  accounts: AccountDirectory;
  /** The name of the organization that registered a client, for the consent page. */
  registeringOrganizationName(clientId: string): Promise<string | undefined>;
  csrf: CsrfTokens;
  signInAttempts: InteractionSignInAttempts;
  logger: Logger;
}

type Context = ParameterizedContext;

const FORM_LIMIT_BYTES = 16 * 1024;
const ROUTE = new RegExp(`^${OAUTH_PATHS.interaction}/([A-Za-z0-9_-]{1,64})(?:/(login|consent))?$`);
const EXPIRED = "This sign-in request has expired or is not valid. Return to the application and start again.";

/**
 * The sign-in and consent pages oidc-provider sends the browser to (interactions.url):
 *   GET  /oauth/interaction/:uid          the page the pending prompt needs (login or consent)
 *   POST /oauth/interaction/:uid/login    e-mail and password
 *   POST /oauth/interaction/:uid/consent  decision=allow|deny
 * The interaction is identified by oidc-provider's cookie (SameSite=Lax, scoped to this path);
 * the uid in the path must match it, and each form carries the interaction's CSRF token.
 */
export function interactionRoutes(deps: InteractionDependencies): Middleware {
  return async (ctx, next) => {
    const match = ROUTE.exec(ctx.path);
    if (!match) return next();
    const [, uid, step] = match as unknown as [string, string, "login" | "consent" | undefined];
    if (ctx.method !== (step ? "POST" : "GET")) return renderError(ctx, 405, "invalid_request", "This page does not accept that method.");

    let interaction: Interaction;
    try {
      interaction = await deps.provider.interactionDetails(ctx.req, ctx.res);
    } catch {
      return renderError(ctx, 400, "invalid_request", EXPIRED);
    }
    if (interaction.uid !== uid) return renderError(ctx, 400, "invalid_request", EXPIRED);
    const client = await deps.provider.Client.find(String(interaction.params.client_id));
    if (!client) return renderError(ctx, 400, "invalid_client", "The application is no longer registered.");
    const page = { uid, applicationName: client.clientName ?? client.clientId, csrfToken: deps.csrf.tokenFor(uid) };

    if (!step) {
      if (interaction.prompt.name === "login") return renderPage(ctx, 200, loginPage({ ...page, action: `${OAUTH_PATHS.interaction}/${uid}/login` }));
      if (interaction.prompt.name === "consent") return showConsent(ctx, deps, interaction, page);
      return renderError(ctx, 400, "invalid_request", EXPIRED);
    }

    const form = await readForm(ctx);
    if (!form) return renderError(ctx, 400, "invalid_request", "The form could not be read.");
    if (!deps.csrf.isValid(uid, form.get("csrf")))
      return renderError(ctx, 403, "invalid_request", "The form has expired. Return to the application and start again.");
    if (interaction.prompt.name !== step) return renderError(ctx, 400, "invalid_request", EXPIRED);

    if (step === "login") {
      const email = form.get("email") ?? "";
      const user = await deps.accounts.authenticate(email, form.get("password") ?? "", clientAddressOf(ctx));
      const action = `${OAUTH_PATHS.interaction}/${uid}/login`;
      if (!user) {
        if (await deps.signInAttempts.recordFailure(uid)) {
          // The request has had its guesses: end it, so the browser must start a new one at the application.
          deps.logger.warn(
            { clientId: client.clientId, clientAddress: clientAddressOf(ctx) },
            "OAuth sign-in attempts of an authorization request used up; request ended",
          );
          return finish(ctx, deps.provider, { error: "access_denied", error_description: "Too many failed sign-in attempts" }, false);
        }
        return renderPage(ctx, 401, loginPage({ ...page, action, email, error: "The e-mail address or password is incorrect." }));
      }
      if ("throttledForSeconds" in user) {
        ctx.set("Retry-After", String(user.throttledForSeconds));
        return renderPage(ctx, 429, loginPage({ ...page, action, email, error: throttledMessage(user.throttledForSeconds) }));
      }
      return finish(ctx, deps.provider, { login: { accountId: user.userId } }, false);
    }

    const decision = form.get("decision");
    if (decision === "deny") {
      return finish(ctx, deps.provider, { error: "access_denied", error_description: "The user denied the request" }, false);
    }
    if (decision !== "allow") return renderError(ctx, 400, "invalid_request", "Choose Allow or Deny.");
    const accountId = interaction.session?.accountId;
    // The account must still be active now, not only when it signed in.
    if (!accountId || !(await deps.accounts.find(accountId))) return renderError(ctx, 400, "invalid_request", EXPIRED);
    // A new grant per consent: revoking one authorization (for example after a replayed code)
    // leaves the user's other authorizations of the same application alone.
    const grant = new deps.provider.Grant({ accountId, clientId: client.clientId });
    const missing = (interaction.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>;
    for (const [resource, scopes] of Object.entries(missing)) grant.addResourceScope(resource, scopes.join(" "));
    const grantId = await grant.save();
    return finish(ctx, deps.provider, { consent: { grantId } }, true);
  };
}

/** The same words the dashboard uses, whether or not the account exists. */
export const throttledMessage = (seconds: number) =>
  `Too many failed sign-in attempts. Try again in ${Math.ceil(seconds / 60)} minute${seconds > 60 ? "s" : ""}.`;

/**
 * The browser's address as the gateway saw it (it sets this header, replacing any sent by the
 * client, from its trusted-proxy configuration); the socket address when called directly.
 */
function clientAddressOf(ctx: Context): string {
  const forwarded = ctx.get("x-svc-client-address");
  return forwarded && forwarded.length <= 64 ? forwarded : (ctx.req.socket.remoteAddress ?? "");
}

async function showConsent(
  ctx: Context,
  deps: InteractionDependencies,
  interaction: Interaction,
  page: { uid: string; applicationName: string; csrfToken: string },
) {
  const accountId = interaction.session?.accountId;
  const account = accountId ? await deps.accounts.find(accountId) : undefined;
  if (!account) return renderError(ctx, 400, "invalid_request", EXPIRED);
  // Every requested scope was checked against the client's allowance (known scopes only)
  // before oidc-provider started this interaction.
  const permissions = parseScopeParameter(String(interaction.params.scope ?? ""))
    .filter(isKnownScope)
    .map((scope) => SCOPE_DESCRIPTIONS[scope]);
  // Any organization may register a client with any name, so the page also says who registered
  // it and where the browser goes next (the redirect URI, already matched exactly against the
  // registration): a "Cal.com" registered by a stranger and redirecting elsewhere shows as such.
  const clientId = String(interaction.params.client_id);
  const registeredBy = (await deps.registeringOrganizationName(clientId)) ?? "an unknown organization";
  const redirectHost = new URL(String(interaction.params.redirect_uri)).host;
  return renderPage(
    ctx,
    200,
    consentPage({ ...page, userEmail: account.email, permissions, registeredBy, redirectHost, action: `${OAUTH_PATHS.interaction}/${page.uid}/consent` }),
  );
}

/** Records the interaction's result and sends the browser back to oidc-provider to resume. */
async function finish(ctx: Context, provider: Provider, result: Record<string, unknown>, mergeWithLastSubmission: boolean) {
  const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission });
  ctx.status = 303;
  ctx.redirect(returnTo);
}

function renderPage(ctx: Context, status: number, html: string) {
  ctx.status = status;
  ctx.set(PAGE_HEADERS);
  ctx.body = html;
}

export function renderError(ctx: Context, status: number, error: string, description?: string) {
  renderPage(ctx, status, errorPage({ error, description }));
}

async function readForm(ctx: Context): Promise<URLSearchParams | undefined> {
  if (!ctx.is("application/x-www-form-urlencoded")) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > FORM_LIMIT_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}
