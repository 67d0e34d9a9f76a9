import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant } from "../support/tenants.ts";
import { openSignInPage } from "./support/http-authorization.ts";
import { useOAuthApp } from "./support/oauth-app.ts";
import { guessWrongPasswords } from "../support/password-guesses.ts";

/**
 * Password guessing against both sign-in forms (the dashboard's JSON endpoint and the OAuth
 * sign-in page), with the stack's production defaults: 10 failures per account, then exponential
 * backoff starting at 30 s; at most 5 wrong passwords per OAuth authorization request. Every
 * guess carries a different made-up Authorization header, as an attacker looking for a fresh
 * rate-limit bucket would send.
 */
describe("password guessing: one throttle with exponential backoff for both sign-in forms", () => {
  const fixture = useStack();
  const target = useOAuthApp(fixture, { name: "Guessing target", scopes: "meeting.create" });

  const randomAuthorization = () => ({ authorization: `Bearer svc_${randomBytes(32).toString("base64url")}` });
  const dashboardSignIn = async (email: string, password: string) => {
    const response = await fetch(`${fixture.stack.gatewayUrl}/api/v1/session`, {
      method: "POST",
      headers: { "content-type": "application/json", ...randomAuthorization() },
      body: JSON.stringify({ email, password }),
    });
    return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as { error?: string } };
  };

  /** Starts an authorization request and opens its sign-in page, as a browser would. */
  async function startInteraction() {
    const { started, interactionPath, cookie, csrf } = await openSignInPage(fixture.stack, target.app, {
      scope: "meeting.create",
      state: "guess",
      headers: randomAuthorization(),
    });
    expect(started.status).toBe(303);
    expect(csrf).toBeDefined();
    return { path: interactionPath, cookie, csrf: csrf! };
  }
  const oauthSignIn = (interaction: { path: string; cookie: string; csrf: string }, email: string, password: string) =>
    fetch(`${fixture.stack.gatewayUrl}${interaction.path}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: interaction.cookie, ...randomAuthorization() },
      body: new URLSearchParams({ email, password, csrf: interaction.csrf }).toString(),
    });

  const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

  it("dashboard: 200 wrong passwords → only the first 10 are checked, the rest refused (429); the right password is refused too; an unknown address answers alike; others sign in", async () => {
    const { victim, victimAnswers, unknownAnswers } = await guessWrongPasswords(fixture.stack, 200, dashboardSignIn);
    const right = await dashboardSignIn(victim.email, victim.password);
    const other = await dashboardSignIn(target.owner.email, target.owner.password);
    console.log(
      `dashboard brute force, 200 wrong passwords: victim ${JSON.stringify(tally(victimAnswers))}, unknown account ${JSON.stringify(tally(unknownAnswers))}; ` +
        `right password while throttled: ${right.status} (Retry-After ${right.retryAfter} s); another account: ${other.status}`,
    );
    expect(victimAnswers.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(victimAnswers.slice(10)).toEqual(Array(190).fill(429));
    expect(unknownAnswers).toEqual(victimAnswers);
    expect(right.status).toBe(429);
    expect(Number(right.retryAfter)).toBeGreaterThan(0);
    expect(Number(right.retryAfter)).toBeLessThanOrEqual(30);
    expect(right.body.error).toMatch(/^Too many failed sign-in attempts/);
    expect(other.status).toBe(200);
    const logs = fixture.stack.logs("identity");
    expect(logs).toContain("sign-in throttled");
    expect(logs).toContain("sign-in backoff");
    expect(logs).not.toContain(victim.email);
    expect(logs).not.toContain("wrong-1");
  });

  it("dashboard: 50 parallel guesses still get only the allowance checked (attempts are counted before the password check)", async () => {
    const victim = await createTenant(fixture.stack, { name: "Parallel victim" });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, attempt) => dashboardSignIn(victim.email, `wrong-${attempt}`)));
    const statuses = answers.map((answer) => answer.status);
    console.log(`dashboard, 50 parallel wrong passwords: ${JSON.stringify(tally(statuses))}`);
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40);
    expect((await dashboardSignIn(victim.email, victim.password)).status).toBe(429);
  });

  it("OAuth page: an authorization request ends after 5 wrong passwords (redirected to the application with access_denied) and cannot be reused", async () => {
    const interaction = await startInteraction();
    const statuses: number[] = [];
    let ended: Response | undefined;
    for (let attempt = 0; attempt < 5; attempt++) {
      const response = await oauthSignIn(interaction, `guess-${attempt}-${randomBytes(3).toString("hex")}@example.com`, "wrong");
      statuses.push(response.status);
      if (response.status === 303) ended = response;
    }
    expect(statuses).toEqual([401, 401, 401, 401, 303]);
    // The request is finished: the browser goes back through /oauth/authorize/<uid> to the application.
    const resumed = await fetch(new URL(ended!.headers.get("location")!, fixture.stack.gatewayUrl), {
      redirect: "manual",
      headers: { cookie: interaction.cookie },
    });
    const callback = new URL(resumed.headers.get("location")!);
    expect(`${callback.origin}${callback.pathname}`).toBe(target.app.redirectUri);
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("state")).toBe("guess");
    // The same request cannot take another guess, even the right password.
    const again = await oauthSignIn(interaction, target.owner.email, target.owner.password);
    expect(again.status).toBe(400);
  });

  it("OAuth page: 200 wrong passwords over as many authorization requests as needed → 10 checked, the rest refused; the right password refused too; the dashboard shares the count", async () => {
    const victim = await createTenant(fixture.stack, { name: "OAuth victim" });
    const statuses: number[] = [];
    let interaction = await startInteraction();
    let requests = 1;
    for (let attempt = 0; attempt < 200; attempt++) {
      const response = await oauthSignIn(interaction, victim.email, `wrong-${attempt}`);
      await response.text();
      statuses.push(response.status);
      if (response.status === 303) {
        interaction = await startInteraction();
        requests += 1;
      }
    }
    const rightInteraction = await startInteraction();
    const right = await oauthSignIn(rightInteraction, victim.email, victim.password);
    const rightPage = await right.text();
    const dashboard = await dashboardSignIn(victim.email, victim.password);
    const other = await oauthSignIn(rightInteraction, target.owner.email, target.owner.password);
    console.log(
      `OAuth page brute force, 200 wrong passwords over ${requests} authorization requests: ${JSON.stringify(tally(statuses))} (303 = request ended after 5 wrong passwords); ` +
        `right password while throttled: ${right.status} (Retry-After ${right.headers.get("retry-after")} s), at the dashboard: ${dashboard.status}; another account: ${other.status}`,
    );
    // 10 checked: 8 wrong-password pages and 2 ended requests (the 5th and 10th wrong password of a request).
    expect(statuses.filter((status) => status === 401 || status === 303)).toHaveLength(10);
    expect(statuses.slice(10).every((status) => status === 429)).toBe(true);
    expect(right.status).toBe(429);
    expect(rightPage).toContain("Too many failed sign-in attempts");
    expect(dashboard.status).toBe(429);
    expect(other.status).toBe(303);
  });
});
