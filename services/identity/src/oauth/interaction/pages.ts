import { createHash } from "node:crypto";
import { html, SafeHtml } from "@svc/platform";

/**
 * The server-rendered pages of the authorization server: sign-in, consent and errors. Plain
 * HTML forms that work without JavaScript; every visible input has a label, every value is
 * escaped by the platform's `html` template (as the gateway's pages are), never by hand.
 */

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:26rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.2)}
h1{font-size:1.4rem;margin-top:0}label{display:block;font-weight:600;margin:1rem 0 .3rem}
input{box-sizing:border-box;width:100%;padding:.6rem;font-size:1rem;border:1px solid #8a93a6;border-radius:4px}
button{font-size:1rem;padding:.6rem 1.2rem;margin:1.2rem .5rem 0 0;border-radius:4px;border:1px solid #1a56db;cursor:pointer}
button.primary{background:#1a56db;color:#fff}button.secondary{background:#fff;color:#1a56db}
[role=alert]{color:#b00020;font-weight:600}li{margin:.4rem 0}
dl{margin:1rem 0;padding:.8rem;background:#f4f5f7;border-radius:4px}
dt{color:#4a5266;font-size:.9rem}dd{margin:0 0 .5rem;font-weight:600;word-break:break-all}dd:last-child{margin-bottom:0}`;

// The page's only style, allowed by hash: the policy admits nothing else (no scripts at all).
// form-action is left unrestricted on purpose: after a form post the browser follows redirects
// to the application's redirect URI, which Chromium would otherwise block.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`,
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": CONTENT_SECURITY_POLICY,
  // The consent page must never be framed (clickjacking), cached, or leak its URL onwards.
  "x-frame-options": "DENY",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
};

export { escapeHtml } from "@svc/platform";

// The style is the page's own constant (its hash is in the policy), inserted as it is.
const style = new SafeHtml(STYLE);

function layout(title: string, content: SafeHtml): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · svc</title>
<style>${style}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>`.toString();
}

export function loginPage(options: { applicationName: string; action: string; csrfToken: string; email?: string; error?: string }): string {
  const error = options.error ? html`<p role="alert">${options.error}</p>` : null;
  return layout(
    "Sign in",
    html`<h1>Sign in</h1>
<p>Sign in to continue to <strong>${options.applicationName}</strong>.</p>
${error}
<form method="post" action="${options.action}">
<input type="hidden" name="csrf" value="${options.csrfToken}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" class="primary">Sign in</button>
</form>`,
  );
}

export function consentPage(options: {
  applicationName: string;
  /** The organization that registered the application (its name is whatever that organization chose). */
  registeredBy: string;
  /** Where the browser is sent after the choice: the redirect URI's host. */
  redirectHost: string;
  userEmail: string;
  permissions: string[];
  action: string;
  csrfToken: string;
}): string {
  const name = options.applicationName;
  const permissions = options.permissions.map(
    (permission) => html`<li>${permission}</li>
`,
  );
  return layout(
    "Allow access",
    html`<h1>Allow ${name} to access your account?</h1>
<dl>
<dt>Registered by</dt><dd id="registered-by">${options.registeredBy}</dd>
<dt>You will be sent to</dt><dd id="redirect-host">${options.redirectHost}</dd>
</dl>
<p>You are signed in as <strong>${options.userEmail}</strong>.</p>
<p id="permissions-heading"><strong>${name}</strong> will be able to:</p>
<ul aria-labelledby="permissions-heading">
${permissions}
</ul>
<form method="post" action="${options.action}">
<input type="hidden" name="csrf" value="${options.csrfToken}">
<button type="submit" name="decision" value="allow" class="primary">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
  );
}

/**
 * Shown instead of the consent page when the user's organization allows only listed
 * applications and this one is not listed: no Allow button, and a button that sends the browser
 * back to the application with `access_denied`.
 */
export function refusedByOrganizationPage(options: {
  applicationName: string;
  registeredBy: string;
  redirectHost: string;
  userEmail: string;
  action: string;
  csrfToken: string;
}): string {
  const name = options.applicationName;
  return layout(
    "Application not allowed",
    html`<h1>Your organization does not allow ${name}</h1>
<p role="alert">An admin of your organization allows only listed applications, and ${name} is not on the list. Ask an admin to add it (dashboard, Organization → Third-party apps).</p>
<dl>
<dt>Registered by</dt><dd id="registered-by">${options.registeredBy}</dd>
<dt>You will be sent back to</dt><dd id="redirect-host">${options.redirectHost}</dd>
</dl>
<p>You are signed in as <strong>${options.userEmail}</strong>.</p>
<form method="post" action="${options.action}">
<input type="hidden" name="csrf" value="${options.csrfToken}">
<button type="submit" name="decision" value="deny" class="primary">Return to ${name}</button>
</form>`,
  );
}

export function errorPage(options: { error: string; description?: string | undefined }): string {
  return layout(
    "Request refused",
    html`<h1>This request cannot be completed</h1>
<p role="alert">${options.description ?? "The request is not valid."}</p>
<p>Error code: <code>${options.error}</code></p>
<p>Return to the application you came from and try again.</p>`,
  );
}
