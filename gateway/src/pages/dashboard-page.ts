import { Router } from "express";
import type { Assets } from "./assets.ts";
import { html } from "@svc/platform";
import { sendPage } from "./page-document.ts";
import { pageSecurity } from "./page-security.ts";

/**
 * The developer dashboard: one page shell for /dashboard and every path under it (the client,
 * gateway/web/dashboard, shows the view the path names and talks only to /api/v1). The site
 * root redirects here. The shell holds no data and no rule, so it needs no credential; the
 * client asks GET /api/v1/session and sends a signed-out person to the sign-in view.
 */
export function dashboardPageRoutes(assets: Assets): Router {
  const router = Router();
  const security = pageSecurity({});
  router.get("/", (_req, res) => res.redirect(302, "/dashboard"));
  router.get(["/dashboard", "/dashboard/{*view}"], security, (_req, res) => {
    res.set({ "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" });
    sendPage(res, assets, {
      status: 200,
      title: "svc dashboard",
      entry: "dashboard",
      body: html`<div id="app"><main class="auth"><p class="loading" role="status">Loading…</p></main></div>
<noscript><p class="notice">The dashboard needs JavaScript. Everything it does is also available through the REST API (/api/v1/openapi.json).</p></noscript>`,
    });
  });
  return router;
}
