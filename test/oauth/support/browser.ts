import type { BrowserContext, Page } from "playwright-core";
import type { OAuthApp } from "./oauth-app.ts";

export interface User {
  email: string;
  password: string;
}

export async function signIn(page: Page, user: User) {
  await page.getByLabel("E-mail address").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/**
 * Opens the authorization URL in a tab of `context`, signs in when asked, answers the consent
 * page and returns the URL the browser was sent back to (the application's redirect URI).
 */
export async function authorizeInBrowser(
  context: BrowserContext,
  app: OAuthApp,
  url: string,
  user: User,
  decision: "Allow" | "Deny" = "Allow",
): Promise<{ callbackUrl: string; askedToSignIn: boolean }> {
  const page = await context.newPage();
  try {
    await page.goto(url);
    const askedToSignIn = (await page.getByRole("button", { name: "Sign in" }).count()) > 0;
    if (askedToSignIn) await signIn(page, user);
    await page.getByRole("button", { name: decision }).click();
    await page.waitForURL((current) => current.href.startsWith(app.redirectUri));
    return { callbackUrl: page.url(), askedToSignIn };
  } finally {
    await page.close();
  }
}

/** Visible form controls of the page that no <label> names (hidden inputs are not controls). */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.$$eval("input:not([type=hidden]), select, textarea", (controls) =>
    controls.filter((control) => (control as HTMLInputElement).labels?.length === 0).map((control) => control.outerHTML),
  );
}
