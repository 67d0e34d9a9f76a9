import type { Browser, Page } from "playwright-core";

export interface OpenedPage {
  page: Page;
  status: number;
  /** Console errors (CSP violations are reported there) and uncaught page errors. */
  problems: string[];
}

/** Opens `url` in a new page of its own context (own storage), recording every problem the page reports. */
export async function openRoomPage(browser: Browser, url: string): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("close", () => void context.close().catch(() => undefined));
  const response = await page.goto(url);
  return { page, status: response!.status(), problems };
}

/** Types a name and presses the join button (its label depends on the devices' state). */
export async function joinAs(page: Page, name: string) {
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: /^Join/ }).click();
}
