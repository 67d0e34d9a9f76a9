import { Router } from "express";
import type { Assets } from "./assets.ts";
import { html } from "@svc/platform";
import { sendPage } from "./page-document.ts";
import { pageSecurity } from "./page-security.ts";

/** The browser bundle of this page: gateway/web/api-reference (Scalar's renderer). */
const ENTRY = "api-reference";
const OPENAPI_URL = "/api/v1/openapi.json";

/**
 * The <style> elements Scalar (1.72.1, pinned exactly in gateway/package.json) inserts at run
 * time, each allowed by the SHA-256 of its exact text rather than by 'unsafe-inline'; the rest of
 * its styling is in the bundled style sheet. After an upgrade, test/docs/api-reference-page.test.ts
 * fails on any new one, and Chromium's console message names its hash.
 */
const scalarStyleElements = [
  // The empty <style> vue-sonner (Scalar's toasts) appends before filling it.
  "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
  // vue-sonner's toast styles.
  "sha256-ZW1GSuo0pKyEx5Ar7ZC5Dflb/mjatjeTW9aVx0iZAzE=",
  // @scalar/use-toasts' styles.
  "sha256-DLlkYCuDYGe6ME23YkUFB7Tc36rGDeo4mVBFbZX3uaU=",
  // The default theme's variables, which the reference renders into a <style> of its own.
  "sha256-rO+6k1mDRASa9Q8IQu9I3bF+bjRdxDreAZCyGSaxzeI=",
];

/**
 * The API reference at {PUBLIC_URL}/docs: the OpenAPI document served at /api/v1/openapi.json,
 * rendered in the browser by Scalar from our own fingerprinted assets, under the pages' strict CSP
 * (no eval, no inline script, <style> elements only by the hashes above) with one relaxation for
 * this page: style="" attributes. Scalar's code samples carry their line count in one
 * (`--line-count: 12; --line-digits: 2;`), a different text for every sample, so hashes cannot list
 * them; without it the examples lose their layout and every sample is a CSP violation. Everything
 * this page renders comes from our own OpenAPI document, and attributes cannot run script.
 * The server renders what a person sees before the script runs, or without it.
 */
export function docsPageRoutes({ assets }: { assets: Assets }): Router {
  const router = Router();
  router.get("/docs", pageSecurity({ styleElementHashes: scalarStyleElements, styleAttributes: true }), (_req, res) => {
    sendPage(res, assets, {
      status: 200,
      title: "API reference · svc",
      entry: ENTRY,
      body: html`<main>
<div id="docs-state" class="docs-state">
<h1>svc API reference</h1>
<p role="status">Loading the API reference…</p>
<noscript><p>This page needs JavaScript to render the reference. The OpenAPI document itself is at <a href="${OPENAPI_URL}">${OPENAPI_URL}</a>.</p></noscript>
</div>
<div id="api-reference" data-openapi-url="${OPENAPI_URL}"></div>
</main>`,
    });
  });
  return router;
}
