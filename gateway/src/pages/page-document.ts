import type { Response } from "express";
import type { Assets } from "./assets.ts";
import { html, type SafeHtml } from "@svc/platform";

export interface PageOptions {
  status: number;
  title: string;
  /** The browser bundle (gateway/web/<entry>) whose style sheet, and unless `styleOnly` script, the page loads. */
  entry: string;
  styleOnly?: boolean;
  /** Set on <body> for the style sheet (for example the page's initial view). */
  bodyClass?: string;
  body: SafeHtml;
}

/** Sends a server-rendered page: no inline script or style, only the entry's fingerprinted assets. */
export function sendPage(res: Response, assets: Assets, page: PageOptions) {
  res
    .status(page.status)
    .type("html")
    .send(
      html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${page.title}</title>
${assets.tags(page.entry, { styleOnly: page.styleOnly ?? false })}
</head>
<body${page.bodyClass ? html` class="${page.bodyClass}"` : null}>
${page.body}
</body>
</html>
`.value,
    );
}
