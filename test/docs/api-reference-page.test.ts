import { mkdirSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { useStack } from "../support/use-stack.ts";

/**
 * The API reference page at PUBLIC_URL/docs: the gateway's OpenAPI document rendered by Scalar
 * from our own assets, under the pages' strict CSP, in real Chromium.
 */
const screenshotDir = "/tmp/docs-shots";
let browser: Browser;
const fixture = useStack();

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(screenshotDir, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});

describe("GET /docs", () => {
  it("is a page with the strict CSP (no eval, no inline script, <style> only by exact hash; style attributes allowed) that loads only its fingerprinted assets", async () => {
    const response = await fetch(`${fixture.stack.gatewayUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = new Map(
      (response.headers.get("content-security-policy") ?? "").split(";").map((directive) => {
        const [name, ...sources] = directive.trim().split(/\s+/);
        return [name!, sources];
      }),
    );
    expect(csp.get("script-src")).toEqual(["'self'"]);
    expect(csp.get("style-src")).toEqual(["'self'"]);
    expect(csp.get("connect-src")).toEqual(["'self'"]);
    expect(csp.get("default-src")).toEqual(["'none'"]);
    // Scalar's few run-time <style> elements are admitted by the hash of their exact text, nothing wider;
    // style="" attributes (its code samples' line counts) are the page's one relaxation.
    const [self, ...elementHashes] = csp.get("style-src-elem") ?? [];
    expect(self).toBe("'self'");
    expect(elementHashes.length).toBeGreaterThan(0);
    for (const source of elementHashes) expect(source).toMatch(/^'sha256-[A-Za-z0-9+/]{43}='$/);
    expect(csp.get("style-src-attr")).toEqual(["'unsafe-inline'"]);
    const otherDirectives = [...csp].filter(([name]) => name !== "style-src-attr").flatMap(([, sources]) => sources);
    expect(otherDirectives.filter((source) => /unsafe-|nonce-|\*/.test(source))).toEqual([]);
    const html = await response.text();
    expect(html).toMatch(/<script type="module" src="\/assets\/api-reference-[A-Z0-9]+\.js"><\/script>/);
    expect(html).toMatch(/<link rel="stylesheet" href="\/assets\/api-reference-[A-Z0-9]+\.css">/);
    expect(html).not.toMatch(/<script>|<style|style="/);
    expect(html).toContain('data-openapi-url="/api/v1/openapi.json"');
  });

  it("renders every operation and the Cal.com guide in Chromium, with no console error, no CSP violation and no request leaving the gateway", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const foreignRequests: string[] = [];
    const origin = new URL(fixture.stack.gatewayUrl).origin;
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.protocol !== "data:" && url.protocol !== "blob:" && url.origin !== origin) foreignRequests.push(request.url());
    });
    // Reported as events in the page, whether or not Chromium also logs them.
    await page.addInitScript(() => {
      const violations: string[] = [];
      (window as unknown as { __cspViolations: string[] }).__cspViolations = violations;
      document.addEventListener("securitypolicyviolation", (event) => violations.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    try {
      const response = await page.goto(`${fixture.stack.gatewayUrl}/docs`);
      expect(response!.status()).toBe(200);

      const document = (await (await fetch(`${fixture.stack.gatewayUrl}/api/v1/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { summary?: string; tags?: string[] }>>;
      };
      const operations = Object.values(document.paths).flatMap((byMethod) => Object.values(byMethod).filter((operation) => operation.summary !== undefined));
      const meetingSummaries = operations.filter((operation) => operation.tags?.includes("Meetings")).map((operation) => operation.summary!);
      expect(meetingSummaries).toEqual(expect.arrayContaining(["Create a meeting", "Update (reschedule) a meeting", "Cancel a meeting", "List meetings"]));

      await page.getByRole("heading", { name: "Using svc from Cal.com" }).waitFor({ timeout: 20_000 });
      await page.screenshot({ path: `${screenshotDir}/docs-introduction.png` });
      // The guide's table maps each adapter call to its request.
      for (const call of ["createMeeting(event)", "updateMeeting(bookingRef, event)", "deleteMeeting(uid)"]) {
        expect(await page.getByRole("cell", { name: call }).count(), call).toBe(1);
      }
      await page.getByRole("heading", { name: "Using svc from Cal.com" }).evaluate((heading) => heading.scrollIntoView());
      await page.screenshot({ path: `${screenshotDir}/docs-cal-com.png` });

      // The navigation lists every tag, and the first one (Meetings) open with all its operations.
      const navigation = page.getByRole("complementary", { name: "Sidebar for svc API" });
      for (const tag of new Set(operations.flatMap((operation) => operation.tags ?? []))) {
        expect(await navigation.getByRole("link", { name: tag, exact: true }).count(), tag).toBe(1);
      }
      for (const summary of meetingSummaries) {
        expect(await navigation.getByRole("link", { name: `${summary} HTTP Method:` }).count(), summary).toBe(1);
      }
      // Following an entry renders that operation with its request body and answers.
      await navigation.getByRole("link", { name: "Update (reschedule) a meeting" }).click();
      const update = page.getByRole("heading", { name: "Update (reschedule) a meeting", exact: true }).first();
      await update.waitFor({ timeout: 10_000 });
      await page.waitForTimeout(500);
      await page.screenshot({ path: `${screenshotDir}/docs-update-meeting.png` });
      expect(await page.getByText("PATCH", { exact: true }).count()).toBeGreaterThan(0);
      await navigation.getByRole("link", { name: "Cancel a meeting" }).click();
      await page.getByRole("heading", { name: "Cancel a meeting", exact: true }).first().waitFor({ timeout: 10_000 });
      // The loading state is gone: Scalar replaced it.
      expect(await page.getByText("Loading the API reference…").count()).toBe(0);

      const violations = await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
      expect(violations).toEqual([]);
      expect(problems).toEqual([]);
      expect(foreignRequests).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
