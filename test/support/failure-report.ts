import path from "node:path";
import type { Page } from "playwright-core";
import { onTestFailed } from "vitest";
import { screenshotDir } from "./meeting-room-browser.ts";
import type { Stack } from "./stack.ts";

const CONSOLE_LINES = 40;
const PAGE_TEXT_CHARACTERS = 800;
const LOG_CHARACTERS = 6_000;

/**
 * What each person's browser showed, said on its console, and what the services logged, printed
 * when the running test fails: a browser test that fails in CI (where nobody sees its screenshots)
 * then says what state it stopped in, rather than only which wait ran out. Call it at the start of
 * the test; register each page with the returned function as it is opened. Screenshots of every
 * page go to `screenshotDir/failure-<name>.png` for a local run.
 */
export function reportPagesOnFailure(stack: () => Stack | undefined): (name: string, page: Page) => void {
  const pages = new Map<string, { page: Page; messages: string[] }>();
  onTestFailed(async () => {
    const lines: string[] = ["", "=== what the browsers showed when the test failed ==="];
    for (const [name, { page, messages }] of pages) {
      lines.push(`--- ${name}: ${page.isClosed() ? "(closed)" : page.url()}`);
      if (!page.isClosed()) {
        const text = await page
          .locator("main")
          .innerText({ timeout: 2_000 })
          .catch((error: Error) => `(no text: ${error.message.split("\n")[0]})`);
        lines.push(`text: ${text.replace(/\s+/g, " ").slice(0, PAGE_TEXT_CHARACTERS)}`);
        await page.screenshot({ path: path.join(screenshotDir, `failure-${name}.png`), timeout: 5_000 }).catch(() => undefined);
      }
      lines.push(...messages.slice(-CONSOLE_LINES).map((line) => `console: ${line}`));
    }
    const running = stack();
    if (running)
      for (const service of ["gateway", "meeting"] as const)
        lines.push(`--- ${service} log (last ${LOG_CHARACTERS} characters)`, running.logs(service).slice(-LOG_CHARACTERS));
    console.log(lines.join("\n"));
  });
  return (name, page) => {
    const messages: string[] = [];
    pages.set(name, { page, messages });
    page.on("console", (message) => void messages.push(`${new Date().toISOString().slice(11, 23)} ${message.type()}: ${message.text()}`));
    page.on("pageerror", (error) => void messages.push(`${new Date().toISOString().slice(11, 23)} pageerror: ${error.message}`));
  };
}
