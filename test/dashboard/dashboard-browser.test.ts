import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync } from "node:fs";
import * as oauth from "oauth4webapi";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unlabelledControls } from "../oauth/support/browser.ts";
import { collectPageProblems, launchChromium } from "../support/chromium.ts";
import { createOAuthApp, insecure, tokenRequest, verifyAtApi } from "../oauth/support/oauth-app.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { holdStill } from "../support/hold-still.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { apiBase, callApi } from "../support/rest-client.ts";

const SHOTS = process.env.DASHBOARD_SHOTS_DIR ?? "/tmp/dash-shots";

describe("developer dashboard in Chromium: every action through the public API, as admin and as member", () => {
  let admin: Tenant;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: WebhookReceiver;
  let callbacks: http.Server;
  let redirectUri: string;
  const violations: string[] = [];

  const shot = (name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  const open = async (label: string) => {
    await page.getByRole("navigation").getByRole("link", { name: label }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe(label === "Users" ? "Users" : label.replace("API keys", "API keys"));
  };
  const signInPage = async (target: Page, email: string, password: string) => {
    await target.goto(`${fixture.stack.gatewayUrl}/`);
    await target.waitForURL(/\/dashboard\/sign-in$/);
    await target.getByLabel("E-mail address").fill(email);
    await target.getByLabel("Password").fill(password);
    await target.getByRole("button", { name: "Sign in" }).click();
    await target.getByRole("navigation").waitFor();
  };
  const secretValue = (label: string) => page.getByLabel(label, { exact: true }).inputValue();

  const fixture = useStack({ env: { SIGNUP_ENABLED: "true" } });
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    admin = await createTenant(fixture.stack, { name: "Acme Video" });
    receiver = await startWebhookReceiver();
    callbacks = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("callback"));
    await new Promise<void>((resolve) => callbacks.listen(0, "127.0.0.1", resolve));
    redirectUri = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}/callback`;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    // Script errors and CSP violations (a refused 401 fetch also logs a console error, which is expected).
    collectPageProblems(page, violations);
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await new Promise<void>((resolve) => (callbacks ? callbacks.close(() => resolve()) : resolve()));
  });

  it("the site root leads to the sign-in page, served with a strict CSP, labelled controls and no inline script; a wrong password shows the API's message", async () => {
    const response = await fetch(`${fixture.stack.gatewayUrl}/dashboard/api-keys`);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const shell = await response.text();
    expect(shell).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(shell).not.toMatch(/style=/);
    expect(shell).toMatch(/<script type="module" src="\/assets\/dashboard-[A-Z0-9]+\.js"><\/script>/);

    await page.goto(`${fixture.stack.gatewayUrl}/`);
    await page.waitForURL(/\/dashboard\/sign-in$/);
    expect(await unlabelledControls(page)).toEqual([]);
    await page.getByLabel("E-mail address").fill(admin.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("The e-mail address or password is incorrect.");
    await shot("01-sign-in-error");
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("navigation").waitFor();
    expect(await page.getByRole("banner").textContent()).toContain(admin.email);
    expect(violations).toEqual([]);
  });

  it("the session cookie is HttpOnly and SameSite=Lax, and the page cannot read it", async () => {
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === "svc_session")!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
    expect(await page.evaluate(() => document.cookie)).not.toContain("svc_session");
  });

  it("API keys: create shows the key once with a copy button and a warning; it works at POST /auth; revoke after confirmation makes it 401", async () => {
    await open("API keys");
    await expect.poll(() => page.getByText("You have no API keys yet.", { exact: false }).count()).toBe(0);
    await page.getByLabel("Key name").fill("");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("name is required");
    await page.getByLabel("Key name").fill("CI deploys");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await secretValue("API key");
    expect(key).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(await page.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);
    expect(await page.getByText("It is shown only this once").isVisible()).toBe(true);
    await page.getByRole("cell", { name: key.slice(0, 12) + "…" }).waitFor();
    await shot("02-api-keys-created");
    expect((await verifyAtApi(fixture.stack, key)).status).toBe(200);

    await page.getByRole("button", { name: "Revoke CI deploys" }).click();
    await page.getByRole("dialog").waitFor();
    await shot("03-api-keys-confirm-revoke");
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
    expect((await verifyAtApi(fixture.stack, key)).status).toBe(200);
    await page.getByRole("button", { name: "Revoke CI deploys" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "is revoked" }).count()).toBe(1);
    expect((await verifyAtApi(fixture.stack, key)).status).toBe(401);
    // A reload shows the list again, never the key.
    await page.reload();
    await page.getByRole("table").waitFor();
    expect(await page.content()).not.toContain(key);
  });

  it("OAuth clients: create → authorization-code flow with oauth4webapi → listed under Authorized apps → revoke ends access and refresh; rotating the secret refuses the old one", async () => {
    await open("OAuth clients");
    await page.getByRole("button", { name: "Register an application" }).click();
    await page.getByLabel("Application name").fill("Cal Scheduler");
    await page.getByLabel("Redirect URIs").fill("not a url");
    await page.getByRole("button", { name: "Register application" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("must be an absolute http(s) URL");
    await page.getByLabel("Redirect URIs").fill(redirectUri);
    await page.getByLabel(/meeting\.create/).check();
    await page.getByLabel(/webhook\.read/).check();
    expect(await unlabelledControls(page)).toEqual([]);
    await shot("04a-oauth-client-form");
    await page.getByRole("button", { name: "Register application" }).click();
    const clientSecret = await secretValue("Client secret");
    const clientId = (await page.locator(".secret code.client-id").textContent())!;
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await shot("04-oauth-clients-created");

    const issuer = new URL(fixture.stack.gatewayUrl);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }));
    const client = { client_id: clientId };
    const authorize = new URL(as.authorization_endpoint!);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: "meeting.create webhook.read",
      response_type: "code",
      state: "s1",
    }).toString();
    const consent = await context.newPage();
    await consent.goto(authorize.href);
    await consent.getByLabel("E-mail address").fill(admin.email);
    await consent.getByLabel("Password").fill(admin.password);
    await consent.getByRole("button", { name: "Sign in" }).click();
    await consent.getByRole("button", { name: "Allow" }).click();
    await consent.waitForURL((url) => url.href.startsWith(redirectUri));
    const parameters = oauth.validateAuthResponse(as, client, new URL(consent.url()), "s1");
    await consent.close();
    const exchanged = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(clientSecret),
      parameters,
      redirectUri,
      oauth.nopkce,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, exchanged);
    expect((await verifyAtApi(fixture.stack, tokens.access_token)).status).toBe(200);
    /** The grant's refresh token presented with `secret`: its answer tells the grant check from the client check. */
    const refreshWith = (secret: string) =>
      tokenRequest(fixture.stack, { grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: clientId, client_secret: secret });

    await open("Authorized apps");
    await page.getByRole("heading", { name: "Cal Scheduler" }).waitFor();
    expect(await page.getByRole("main").textContent()).toContain("meeting.create");
    await shot("05-authorized-apps");
    await page.getByRole("button", { name: "Revoke access of Cal Scheduler" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke access" }).click();
    await page.getByText("You have not authorized any application.").waitFor();
    expect((await verifyAtApi(fixture.stack, tokens.access_token)).status).toBe(401);
    const refreshed = await refreshWith(clientSecret);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe("invalid_grant");

    await open("OAuth clients");
    await page.getByRole("button", { name: "Rotate the secret of Cal Scheduler" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
    await expect.poll(() => secretValue("Client secret")).not.toBe(clientSecret);
    const newSecret = await secretValue("Client secret");
    const withOld = await refreshWith(clientSecret);
    expect(withOld.status).toBe(401);
    expect(withOld.body.error).toBe("invalid_client");
    // The new secret authenticates the client (the grant itself is gone: invalid_grant, not invalid_client).
    const withNew = await refreshWith(newSecret);
    expect(withNew.body.error).toBe("invalid_grant");

    await page.getByRole("button", { name: "Edit Cal Scheduler" }).click();
    await page.getByLabel("Application name").fill("Cal.com Scheduler");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "Cal.com Scheduler" }).waitFor();
    await shot("06-oauth-clients-list");
  });

  it("OAuth clients: 'Require PKCE' registers a client whose card says so, and an edit keeps or clears it", async () => {
    await open("OAuth clients");
    await page.getByRole("button", { name: "Register an application" }).click();
    await page.getByLabel("Application name").fill("Strict App");
    await page.getByLabel("Redirect URIs").fill("https://strict.example/cb");
    await page.getByLabel(/meeting\.read/).check();
    const requirePkce = page.getByLabel("Require PKCE on every authorization request");
    expect(await requirePkce.isChecked()).toBe(false);
    await requirePkce.check();
    await shot("04c-oauth-client-form-pkce");
    await page.getByRole("button", { name: "Register application" }).click();
    await secretValue("Client secret");
    const card = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Strict App" }) });
    await expect.poll(() => card.textContent()).toContain("Required on every authorization request");
    await shot("04d-oauth-client-pkce-required");

    await card.getByRole("button", { name: "Edit Strict App" }).click();
    const editBox = card.getByLabel("Require PKCE on every authorization request");
    expect(await editBox.isChecked()).toBe(true);
    await editBox.uncheck();
    await card.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").filter({ hasText: "“Strict App” is saved." }).waitFor();
    await expect
      .poll(() =>
        page
          .getByRole("listitem")
          .filter({ has: page.getByRole("heading", { name: "Strict App" }) })
          .textContent(),
      )
      .toContain("Not required");
  });

  it("Webhooks: create → end a meeting → the delivery is in the log → redeliver sends it again with the same webhook-id, and the open log (and the card's last delivery) follows it to its answer", async () => {
    await open("Webhooks");
    await page.getByText("No webhooks yet.", { exact: false }).waitFor();
    await shot("07-webhooks-empty");
    await page.getByLabel("Endpoint URL").fill(`${receiver.baseUrl}/hooks/dashboard`);
    await page.getByLabel("meeting.ended").check();
    await page.getByRole("button", { name: "Register webhook" }).click();
    const secret = await secretValue("Signing secret");
    expect(secret).toMatch(/^whsec_/);
    receiver.useSecret("/hooks/dashboard", secret);

    const meeting = await callApi(apiBase(fixture.stack), "POST", "/meeting", {
      key: admin.apiKey,
      body: { title: "Dashboard check", attendees: ["ada@example.com"] },
    }).then((response) => response.json() as Promise<{ id: string }>);
    const ended = await callApi(apiBase(fixture.stack), "POST", `/meeting/${meeting.id}/end`, { key: admin.apiKey });
    expect(ended.status).toBe(200);
    await waitFor(() => receiver.on("/hooks/dashboard").length === 1, 20_000, "the meeting.ended delivery did not arrive");
    const first = receiver.on("/hooks/dashboard")[0]!;

    await page.getByRole("button", { name: `Delivery log of ${receiver.baseUrl}/hooks/dashboard` }).click();
    const log = page.getByRole("list", { name: `Deliveries to ${receiver.baseUrl}/hooks/dashboard` });
    await log.waitFor();
    expect(await log.textContent()).toContain(`webhook-id ${first.id}`);
    expect(await log.textContent()).toContain("HTTP 204");
    // The redelivery is answered slowly, so the log first shows it in flight and must follow it.
    receiver.answer("/hooks/dashboard", (attempt) => (attempt === 2 ? { status: 204, delayMs: 2_000 } : 204));
    await page.getByRole("button", { name: `Redeliver meeting.ended ${first.id}` }).click();
    await waitFor(() => receiver.on("/hooks/dashboard").length === 2, 20_000, "the redelivery did not arrive");
    expect(receiver.on("/hooks/dashboard")[1]!.id).toBe(first.id);
    await log.getByText("Pending").waitFor();
    expect(await log.getByRole("table").first().getByRole("row").count()).toBe(2);
    await shot("08a-webhooks-redelivery-in-flight");
    await expect.poll(async () => (await log.getByRole("table").first().getByRole("row").count()) - 1, { timeout: 10_000 }).toBe(2);
    await log.getByText("Delivered").waitFor();
    // The card's summary follows the log it shows (it was "None yet" when the list was loaded).
    const card = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: `${receiver.baseUrl}/hooks/dashboard` }) });
    expect(await card.locator("dt", { hasText: "Last delivery" }).locator("xpath=following-sibling::dd[1]").textContent()).toMatch(/^Delivered · /);
    receiver.answer("/hooks/dashboard", () => 204);
    await shot("08-webhooks-delivery-log");
  });

  it("Webhooks: rotating the signing secret shows the new one once and keeps deliveries verifiable; disabling asks first and stops deliveries until enabled", async () => {
    const url = `${receiver.baseUrl}/hooks/dashboard`;
    const card = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: url }) });
    const webhookState = async () => {
      const listed = await callApi(apiBase(fixture.stack), "GET", "/webhook", { key: admin.apiKey });
      const { webhooks } = (await listed.json()) as { webhooks: { url: string; disabled: boolean }[] };
      return webhooks.find((webhook) => webhook.url === url)!.disabled ? "disabled" : "enabled";
    };

    await page.getByRole("button", { name: `Rotate the signing secret of ${url}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
    const rotated = await secretValue("Signing secret");
    expect(rotated).toMatch(/^whsec_/);
    await page.getByText("The old secret keeps signing until", { exact: false }).waitFor();
    // A signing secret is kept encrypted (we sign with it), not hashed: the warning says so.
    expect(await page.getByText("we keep it encrypted, only to sign deliveries", { exact: false }).isVisible()).toBe(true);
    await shot("08b-webhooks-secret-rotated");
    // The receiver now knows only the new secret: the next delivery must verify with it.
    receiver.useSecret("/hooks/dashboard", rotated);
    const before = receiver.on("/hooks/dashboard").length;
    await page.getByRole("button", { name: `Send a test event to ${url}` }).click();
    await waitFor(() => receiver.on("/hooks/dashboard").length === before + 1, 20_000, "the test event signed with the new secret did not arrive");

    // Cancel leaves it enabled; confirming disables it.
    await page.getByRole("button", { name: `Disable ${url}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
    expect(await webhookState()).toBe("enabled");
    await page.getByRole("button", { name: `Disable ${url}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Disable webhook" }).click();
    await card.getByText("Disabled", { exact: true }).waitFor();
    expect(await webhookState()).toBe("disabled");
    await shot("08c-webhooks-disabled");

    await page.getByRole("button", { name: `Enable ${url}` }).click();
    await card.getByText("Enabled", { exact: true }).waitFor();
    expect(await webhookState()).toBe("enabled");
  });

  it("Recordings: the meeting picked last is the one shown, whichever answer comes last", async () => {
    const createMeeting = (title: string, recording: string) =>
      callApi(apiBase(fixture.stack), "POST", "/meeting", { key: admin.apiKey, body: { title, recording } })
        .then((response) => response.json() as Promise<{ id: string }>)
        .then((meeting) => meeting.id);
    const unrecorded = await createMeeting("Stand-up, not recorded", "off");
    const recorded = await createMeeting("Review, recorded", "manual"); // the newest: the page opens on it
    // The page's first answer (the recorded meeting's list) is held back in the network, as a slow
    // connection would, until the person has picked the other meeting and seen its list.
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    await page.route(`**/meeting/${recorded}/recordings`, async (route) => {
      await firstHeld;
      await route.continue();
    });
    await open("Recordings");
    await page.getByLabel("Meeting").selectOption(unrecorded);
    const shownOff = page.getByText("This meeting has no recordings: recording is off for it");
    await shownOff.waitFor();
    const firstAnswered = page.waitForResponse(`**/meeting/${recorded}/recordings`);
    releaseFirst();
    await firstAnswered;
    await holdStill(1_000, "a negative: the stale answer, now in the page, would replace the list of the meeting picked");
    expect(await shownOff.isVisible()).toBe(true);
    expect(await page.getByText("This meeting has no recordings yet.").count()).toBe(0);
    await page.unroute(`**/meeting/${recorded}/recordings`);
  });

  it("Users: an admin adds a member; the member's dashboard offers neither OAuth clients, users nor webhook changes, and the API refuses them", async () => {
    await open("Users");
    await page.getByLabel("E-mail address").fill("member@acme.example");
    await page.getByLabel("Initial password").fill("member password");
    await page.getByLabel("Role").selectOption("member");
    await page.getByRole("button", { name: "Add person" }).click();
    await page.getByRole("rowheader", { name: "member@acme.example" }).waitFor();
    await shot("09-users");

    const memberContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const memberPage = await memberContext.newPage();
    await signInPage(memberPage, "member@acme.example", "member password");
    const nav = memberPage.getByRole("navigation");
    expect(await nav.getByRole("link").allTextContents()).toEqual(["Meetings", "Usage", "Recordings", "API keys", "Webhooks", "Authorized apps"]);
    await nav.getByRole("link", { name: "Webhooks" }).click();
    await memberPage.getByText("Only admins of your organization can register").waitFor();
    await memberPage.getByRole("heading", { name: `${receiver.baseUrl}/hooks/dashboard` }).waitFor();
    expect(await memberPage.getByRole("button", { name: /Delete|Send a test event|Register webhook/ }).count()).toBe(0);
    await memberPage.screenshot({ path: `${SHOTS}/10-member-webhooks.png`, fullPage: true });
    await memberPage.goto(`${fixture.stack.gatewayUrl}/dashboard/users`);
    await memberPage.getByRole("heading", { name: "Not available to you" }).waitFor();
    await memberPage.screenshot({ path: `${SHOTS}/11-member-users-refused.png`, fullPage: true });
    // The API says the same when the page is bypassed (the browser's own cookie and CSRF token).
    const status = await memberPage.evaluate(async () => {
      const csrf = document.cookie
        .split("; ")
        .find((part) => part.startsWith("svc_csrf="))!
        .slice("svc_csrf=".length);
      const response = await fetch("/api/v1/oauth-clients", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": csrf },
        body: JSON.stringify({ name: "x", redirectUris: ["https://x.example/cb"], scopes: ["meeting.create"] }),
      });
      return response.status;
    });
    expect(status).toBe(403);
    await memberContext.close();
  });

  it("a cross-site form POST with the victim's browser creates nothing; after sign-out the old cookie is refused", async () => {
    const before = (await fixture.stack.query("SELECT count(*)::int AS n FROM identity.api_keys")).rows[0]!.n;
    // Another site (localhost is not the same site as 127.0.0.1) with a form aimed at the API.
    const target = `${fixture.stack.gatewayUrl}/api/v1/api-keys`;
    const evil = http.createServer((_req, res) => {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(`<form method="post" action="${target}" enctype="text/plain"><input name='{"name":"evil","x":"' value='"}'><button>Win a prize</button></form>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    const evilPage = await context.newPage();
    await evilPage.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
    const [response] = await Promise.all([evilPage.waitForResponse(target), evilPage.getByRole("button", { name: "Win a prize" }).click()]);
    expect([400, 401, 403]).toContain(response.status());
    await evilPage.close();
    await new Promise<void>((resolve) => evil.close(() => resolve()));
    expect((await fixture.stack.query("SELECT count(*)::int AS n FROM identity.api_keys")).rows[0]!.n).toBe(before);

    const cookies = await context.cookies();
    const cookieHeader = cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
    const csrf = cookies.find((cookie) => cookie.name === "svc_csrf")!.value;
    const call = () => callApi(apiBase(fixture.stack), "GET", "/api-keys", { cookie: cookieHeader, headers: { "x-csrf-token": csrf } });
    expect((await call()).status).toBe(200);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/dashboard\/sign-in$/);
    await shot("12-signed-out");
    expect((await call()).status).toBe(401);
    expect(violations).toEqual([]);
  });

  it("sign-up (enabled here) creates an organization whose founder is an admin", async () => {
    const signUp = await context.newPage();
    await signUp.goto(`${fixture.stack.gatewayUrl}/dashboard/sign-up`);
    expect(await unlabelledControls(signUp)).toEqual([]);
    await signUp.getByLabel("Organization name").fill("Newco");
    await signUp.getByLabel("E-mail address").fill("founder@newco.example");
    await signUp.getByLabel("Password").fill("short");
    await signUp.getByRole("button", { name: "Create organization" }).click();
    await expect.poll(() => signUp.getByRole("alert").textContent()).toBe("password must be at least 8 characters");
    await signUp.screenshot({ path: `${SHOTS}/13-sign-up-error.png`, fullPage: true });
    await signUp.getByLabel("Password").fill("founder password");
    await signUp.getByRole("button", { name: "Create organization" }).click();
    await signUp.getByRole("navigation").waitFor();
    expect(await signUp.getByRole("navigation").getByRole("link").allTextContents()).toEqual([
      "Meetings",
      "Usage",
      "Recordings",
      "API keys",
      "OAuth clients",
      "Webhooks",
      "Authorized apps",
      "Users",
      "Third-party apps",
      "Embedding",
    ]);
    expect(await signUp.getByRole("banner").textContent()).toContain("Newco");
    await signUp.close();
  });

  it("the throttle is shared with the OAuth sign-in page: failures at the dashboard refuse the right password there too", async () => {
    const victim = await createTenant(fixture.stack, { name: "Victim Org" });
    for (let attempt = 0; attempt < 10; attempt++) {
      const response = await fetch(`${fixture.stack.gatewayUrl}/api/v1/session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: victim.email, password: `wrong ${attempt}` }),
      });
      expect(response.status).toBe(401);
    }
    const app = await createOAuthApp(fixture.stack, admin, { name: "Throttle Probe", scopes: "meeting.create" });
    try {
      const oauthPage = await browser.newPage();
      await oauthPage.goto(app.authorizeUrl({ scope: "meeting.create", state: "t" }));
      await oauthPage.getByLabel("E-mail address").fill(victim.email);
      await oauthPage.getByLabel("Password").fill(victim.password);
      const [response] = await Promise.all([
        oauthPage.waitForResponse((r) => r.request().method() === "POST"),
        oauthPage.getByRole("button", { name: "Sign in" }).click(),
      ]);
      expect(response.status()).toBe(429);
      expect(await oauthPage.getByRole("alert").textContent()).toMatch(/^Too many failed sign-in attempts\. Try again in \d+ minutes?\.$/);
      await oauthPage.screenshot({ path: `${SHOTS}/14-oauth-sign-in-throttled.png`, fullPage: true });
      await oauthPage.close();
    } finally {
      await app.close();
    }
  });
});
