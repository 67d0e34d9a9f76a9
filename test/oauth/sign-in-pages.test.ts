import { describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { openSignInPage } from "./support/http-authorization.ts";
import { useOAuthApp } from "./support/oauth-app.ts";

/**
 * The sign-in and consent forms as a plain HTTP client sees them (no browser): cookies,
 * security headers and the CSRF defences of the form posts.
 */
describe("OAuth sign-in and consent pages: cookies, headers and CSRF-safe form posts", () => {
  const fixture = useStack();
  const oauthApp = useOAuthApp(fixture, { name: "Pages <App> & Co", scopes: "meeting.create" });

  /** Starts an authorization and follows it to the sign-in page, keeping the cookies it set. */
  async function startInteraction() {
    const { started, interactionPath, setCookies, cookie, page, html, csrf } = await openSignInPage(fixture.stack, oauthApp.app, {
      scope: "meeting.create",
      state: "st",
    });
    expect(started.status).toBe(303);
    expect(interactionPath).toMatch(/^\/oauth\/interaction\/[A-Za-z0-9_-]+$/);
    expect(csrf).toBeDefined();
    return { interactionPath, setCookies, cookie, page, html, csrf: csrf! };
  }

  const post = (path: string, cookie: string | undefined, fields: Record<string, string>) =>
    fetch(`${fixture.stack.gatewayUrl}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields).toString(),
    });

  it("the interaction cookies are HttpOnly, SameSite=Lax, signed and scoped to their own paths", async () => {
    const { setCookies, interactionPath } = await startInteraction();
    const interaction = setCookies.filter((header) => header.startsWith("_interaction="));
    expect(interaction).toHaveLength(1);
    expect(interaction[0]).toMatch(/; path=\/oauth\/interaction\/[A-Za-z0-9_-]+;/);
    expect(interaction[0]).toContain(`path=${interactionPath};`);
    for (const header of setCookies) {
      expect(header.toLowerCase()).toContain("httponly");
      expect(header.toLowerCase()).toContain("samesite=lax");
    }
    expect(setCookies.some((header) => header.startsWith("_interaction.sig="))).toBe(true);
  });

  it("the sign-in page escapes the application's name, runs no script, cannot be framed and is not cached", async () => {
    const { page, html } = await startInteraction();
    expect(page.status).toBe(200);
    expect(html).toContain("Pages &lt;App&gt; &amp; Co");
    expect(html).not.toContain("<App>");
    expect(html).not.toMatch(/<script/i);
    const policy = page.headers.get("content-security-policy")!;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain("script-src");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("a sign-in post without the CSRF token, with a wrong one or with another interaction's is refused with 403 and signs nobody in", async () => {
    const { interactionPath, cookie } = await startInteraction();
    const other = await startInteraction();
    for (const csrf of [undefined, "forged", other.csrf]) {
      const response = await post(`${interactionPath}/login`, cookie, {
        email: oauthApp.owner.email,
        password: oauthApp.owner.password,
        ...(csrf ? { csrf } : {}),
      });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("The form has expired");
    }
  });

  it("a cross-site post (the browser sends no SameSite=Lax cookie) is refused even with a valid CSRF token", async () => {
    const { interactionPath, csrf } = await startInteraction();
    const response = await post(`${interactionPath}/login`, undefined, { email: oauthApp.owner.email, password: oauthApp.owner.password, csrf });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("This sign-in request has expired or is not valid");
  });

  it("the interaction in the path must be the one of the cookie", async () => {
    const first = await startInteraction();
    const second = await startInteraction();
    const response = await post(`${second.interactionPath}/login`, first.cookie, {
      email: oauthApp.owner.email,
      password: oauthApp.owner.password,
      csrf: second.csrf,
    });
    expect(response.status).toBe(400);
  });

  it("an unknown e-mail address and a wrong password get the same 401 answer; the right ones continue the authorization", async () => {
    const { interactionPath, cookie, csrf } = await startInteraction();
    const unknown = await post(`${interactionPath}/login`, cookie, { email: "nobody@example.com", password: oauthApp.owner.password, csrf });
    const wrong = await post(`${interactionPath}/login`, cookie, { email: oauthApp.owner.email, password: "not-the-password", csrf });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    const message = (html: string) => /<p role="alert">([^<]*)<\/p>/.exec(html)?.[1];
    expect(message(await unknown.text())).toBe("The e-mail address or password is incorrect.");
    expect(message(await wrong.text())).toBe("The e-mail address or password is incorrect.");

    const right = await post(`${interactionPath}/login`, cookie, { email: oauthApp.owner.email.toUpperCase(), password: oauthApp.owner.password, csrf });
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe(`${new URL(fixture.stack.gatewayUrl).origin}/oauth/authorize/${interactionPath.split("/").pop()}`);
  });

  it("authorization responses go only in the query: response_mode fragment or form_post is refused with unsupported_response_mode, in the query", async () => {
    for (const mode of ["fragment", "form_post"]) {
      const url = new URL(oauthApp.app.authorizeUrl({ scope: "meeting.create", state: "rm" }));
      url.searchParams.set("response_mode", mode);
      const response = await fetch(url, { redirect: "manual" });
      expect(response.status, mode).toBe(303);
      const location = new URL(response.headers.get("location")!);
      expect(`${location.origin}${location.pathname}`, mode).toBe(oauthApp.app.redirectUri);
      expect(location.hash).toBe("");
      expect(location.searchParams.get("error")).toBe("unsupported_response_mode");
      expect(location.searchParams.get("state")).toBe("rm");
    }
    const query = new URL(oauthApp.app.authorizeUrl({ scope: "meeting.create", state: "rm" }));
    query.searchParams.set("response_mode", "query");
    const accepted = await fetch(query, { redirect: "manual" });
    expect(accepted.headers.get("location")).toMatch(/^\/oauth\/interaction\//);
  });

  it("a consent post before signing in is refused (the pending step is sign-in)", async () => {
    const { interactionPath, cookie, csrf } = await startInteraction();
    const response = await post(`${interactionPath}/consent`, cookie, { decision: "allow", csrf });
    expect(response.status).toBe(400);
  });

  // Last: it stops identity.
  it("while the authorization server is down the gateway answers 503 JSON with Retry-After, and forwards again once it is back", async () => {
    await fixture.stack.kill("identity");
    const down = await fetch(`${fixture.stack.gatewayUrl}/api/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=refresh_token",
    });
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBe("1");
    expect(await down.json()).toMatchObject({ error: "Service temporarily unavailable" });
    await fixture.stack.start("identity");
    const up = await fetch(`${fixture.stack.gatewayUrl}/.well-known/oauth-authorization-server`);
    expect(up.status).toBe(200);
  });
});
