import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signIn, unlabelledControls } from "../oauth/support/browser.ts";
import { createOAuthApp, type OAuthApp } from "../oauth/support/oauth-app.ts";
import { collectPageProblems, launchChromium } from "../support/chromium.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";

const SHOTS = process.env.DASHBOARD_SHOTS_DIR ?? "/tmp/dash-shots";

/**
 * Issue 33, finding 4: the dashboard's Third-party apps page (admins) in Chromium, driven by the
 * keyboard and found by role and label, then what a member meets at the consent step.
 */
describe("Third-party apps in Chromium: an admin allows only listed applications; a member is refused an unlisted one", () => {
  let members: Tenant;
  let vendor: Tenant;
  let listedApp: OAuthApp;
  let unlistedApp: OAuthApp;
  let browser: Browser;
  let page: Page;
  const violations: string[] = [];
  const member = { email: "member@careful.example", password: "member password 1" };
  const policyRow = async () =>
    (await fixture.stack.query("SELECT oauth_client_policy AS policy FROM identity.organizations WHERE id = $1", [members.orgId])).rows[0]!.policy as string;

  const fixture = useStack();
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    [members, vendor] = await Promise.all([createTenant(fixture.stack, { name: "Careful Corp" }), createTenant(fixture.stack, { name: "App Vendor Ltd" })]);
    [listedApp, unlistedApp] = await Promise.all([
      createOAuthApp(fixture.stack, vendor, { name: "Vendor Scheduler", scopes: "meeting.create" }),
      createOAuthApp(fixture.stack, vendor, { name: "Cal.com", scopes: "meeting.create" }),
    ]);
    await fixture.stack.cli("users", "create", "--org", members.orgId, "--email", member.email, "--password", member.password);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    collectPageProblems(page, violations);
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([listedApp, unlistedApp].map((app) => app?.close()));
  });

  it("the admin lists a client by its id, sees its name and organization, and switches to 'Only listed applications', all with the keyboard", async () => {
    await page.goto(`${fixture.stack.gatewayUrl}/dashboard/sign-in`);
    await signIn(page, { email: members.email, password: members.password });
    await page.getByRole("navigation").getByRole("link", { name: "Third-party apps" }).click();
    await page.getByRole("heading", { level: 1, name: "Third-party apps" }).waitFor();
    await page.getByText("No application is listed.").waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    const anyApplication = page.getByRole("radio", { name: "Any application" });
    expect(await anyApplication.isChecked()).toBe(true);

    // List the vendor's client: type its id, Enter submits.
    await page.getByLabel("Client ID").focus();
    await page.keyboard.type(listedApp.clientId);
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Vendor Scheduler (registered by App Vendor Ltd) is listed." }).waitFor();
    const row = page.getByRole("row", { name: /Vendor Scheduler/ });
    await row.waitFor();
    expect(await row.getByRole("cell").first().textContent()).toBe("App Vendor Ltd");
    expect(await row.textContent()).toContain(listedApp.clientId);

    // An unknown id: the API's message, nothing listed.
    await page.getByLabel("Client ID").fill(crypto.randomUUID());
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("OAuth client not found");
    // The earlier success is gone: the page never says "listed" beside the refusal.
    expect(await page.getByRole("status").filter({ hasText: "is listed." }).count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/third-party-apps-refused.png`, fullPage: true });

    // The policy: arrow keys move within the radio group, Tab reaches Save, Enter presses it.
    await anyApplication.focus();
    await page.keyboard.press("ArrowDown");
    expect(await page.getByRole("radio", { name: "Only listed applications" }).isChecked()).toBe(true);
    await page.keyboard.press("Tab");
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Save policy");
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Allow only listed applications?" });
    await dialog.waitFor();
    await page.screenshot({ path: `${SHOTS}/third-party-apps-confirm.png`, fullPage: true });
    await dialog.getByRole("button", { name: "Allow only listed" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Only listed applications can be authorized now." }).waitFor();
    await page.getByRole("table", { name: "Listed applications (allowed)" }).waitFor();
    expect(await page.getByRole("radio", { name: "Only listed applications" }).isChecked()).toBe(true);
    expect(await policyRow()).toBe("listed");
    await page.screenshot({ path: `${SHOTS}/third-party-apps.png`, fullPage: true });
    expect(violations).toEqual([]);
  });

  it("a member is refused the unlisted client on the consent step (no Allow button) and 'Return to' sends the application access_denied", async () => {
    const memberPage = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    try {
      await memberPage.goto(unlistedApp.authorizeUrl({ scope: "meeting.create", state: "browser-refused" }));
      await signIn(memberPage, member);
      await memberPage.getByRole("heading", { level: 1, name: "Your organization does not allow Cal.com" }).waitFor();
      expect(await memberPage.getByRole("alert").textContent()).toContain("allows only listed applications");
      expect(await memberPage.locator("#registered-by").textContent()).toBe("App Vendor Ltd");
      expect(await memberPage.getByRole("button", { name: "Allow" }).count()).toBe(0);
      await memberPage.screenshot({ path: `${SHOTS}/consent-refused-by-organization.png`, fullPage: true });
      await memberPage.getByRole("button", { name: "Return to Cal.com" }).click();
      await memberPage.waitForURL((url) => url.href.startsWith(unlistedApp.redirectUri));
      const callback = new URL(memberPage.url());
      expect(callback.searchParams.get("error")).toBe("access_denied");
      expect(callback.searchParams.get("error_description")).toBe("the user's organization does not allow this application");
      expect(callback.searchParams.get("state")).toBe("browser-refused");
    } finally {
      await memberPage.context().close();
    }
  });

  it("the admin removes the client with the keyboard after confirming; the table empties", async () => {
    await page.getByRole("button", { name: "Remove Vendor Scheduler from the list" }).focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Remove Vendor Scheduler?" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Remove" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Vendor Scheduler is no longer listed." }).waitFor();
    await page.getByText("People in your organization can authorize only your organization's own applications.").waitFor();
    const listed = await fixture.stack.query("SELECT count(*)::int AS n FROM identity.oauth_client_allow_list WHERE org_id = $1", [members.orgId]);
    expect(listed.rows[0]!.n).toBe(0);
    expect(violations).toEqual([]);
  });
});
