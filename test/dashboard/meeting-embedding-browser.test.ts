import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signIn, unlabelledControls } from "../oauth/support/browser.ts";
import { collectPageProblems, launchChromium } from "../support/chromium.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";

const SHOTS = process.env.DASHBOARD_SHOTS_DIR ?? "/tmp/dash-shots";

/**
 * Issue 42, embedding: the dashboard's Embedding page (Organization, admins) in Chromium, found by
 * role and label: allow a site, see the API's normalized origin and its refusal in words, remove a
 * site after confirming. The page shows what GET/PUT /api/v1/meeting-embedding answer.
 */
describe("Embedding in Chromium: an admin allows and removes the sites that may frame the organization's meetings", () => {
  let tenant: Tenant;
  let browser: Browser;
  let page: Page;
  const violations: string[] = [];
  const storedOrigins = async () =>
    (await fixture.stack.query("SELECT embed_origins FROM identity.organizations WHERE id = $1", [tenant.orgId])).rows[0]!.embed_origins as string[];

  const fixture = useStack();
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    tenant = await createTenant(fixture.stack, { name: "Acme Scheduling" });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    collectPageProblems(page, violations);
  });
  afterAll(async () => browser?.close());

  it("adds an origin (normalized by the API), refuses a bad one with the API's words, and removes one after confirmation", async () => {
    await page.goto(`${fixture.stack.gatewayUrl}/dashboard/sign-in`);
    await signIn(page, { email: tenant.email, password: tenant.password });
    await page.getByRole("navigation").getByRole("link", { name: "Embedding" }).click();
    await page.getByRole("heading", { level: 1, name: "Embedding" }).waitFor();
    await page.getByText("No site may show your meetings").waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/embedding-empty.png`, fullPage: true });

    await page.getByLabel("Origin").fill("https://Scheduler.Example.com/");
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "https://scheduler.example.com may now show your meetings." }).waitFor();
    await page.getByLabel("Origin").fill("http://localhost:3000");
    await page.getByRole("button", { name: "Allow", exact: true }).click();
    await page.getByRole("row", { name: /http:\/\/localhost:3000/ }).waitFor();
    expect(await storedOrigins()).toEqual(["https://scheduler.example.com", "http://localhost:3000"]);
    expect(await page.getByRole("table").getByRole("caption").textContent()).toBe("Allowed sites (2 of 25)");

    await page.getByLabel("Origin").fill("http://scheduler.example.org");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByRole("alert").textContent()).toContain('"http://scheduler.example.org" must be https');
    expect(await storedOrigins()).toEqual(["https://scheduler.example.com", "http://localhost:3000"]);
    await page.screenshot({ path: `${SHOTS}/embedding-desktop.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}/embedding-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole("button", { name: "Remove http://localhost:3000" }).click();
    const dialog = page.getByRole("dialog", { name: "Remove http://localhost:3000?" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Remove" }).click();
    await page.getByRole("status").filter({ hasText: "http://localhost:3000 may no longer show your meetings." }).waitFor();
    expect(await storedOrigins()).toEqual(["https://scheduler.example.com"]);
    expect(violations).toEqual([]);
  });
});
