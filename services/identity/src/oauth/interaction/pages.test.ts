import { describe, expect, it } from "vitest";
import { consentPage, errorPage, escapeHtml, loginPage, PAGE_HEADERS } from "./pages.ts";

describe("OAuth pages", () => {
  const hostile = `"><script>alert('x')</script>&`;

  it("escape every interpolated value, in text and in attributes", () => {
    expect(escapeHtml(hostile)).toBe("&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;");
    const pages = [
      loginPage({ applicationName: hostile, action: "/a", csrfToken: hostile, email: hostile, error: hostile }),
      consentPage({
        applicationName: hostile,
        registeredBy: hostile,
        redirectHost: hostile,
        userEmail: hostile,
        permissions: [hostile],
        action: "/a",
        csrfToken: hostile,
      }),
      errorPage({ error: hostile, description: hostile }),
    ];
    for (const page of pages) {
      expect(page).not.toContain("<script>");
      expect(page).not.toContain(hostile);
      expect(page).toContain(escapeHtml(hostile));
    }
  });

  it("label every visible input and name the buttons as the specification does", () => {
    const login = loginPage({ applicationName: "App", action: "/oauth/interaction/u/login", csrfToken: "t" });
    expect(login).toContain('<label for="email">');
    expect(login).toContain('<input id="email"');
    expect(login).toContain('<label for="password">');
    expect(login).toContain('<input id="password"');
    expect(login).toMatch(/<button type="submit"[^>]*>Sign in<\/button>/);
    const consent = consentPage({
      applicationName: "App",
      registeredBy: "App Inc",
      redirectHost: "app.example.com",
      userEmail: "u@example.com",
      permissions: ["Create meetings for you"],
      action: "/c",
      csrfToken: "t",
    });
    expect(consent).toMatch(/<button[^>]*value="allow"[^>]*>Allow<\/button>/);
    expect(consent).toMatch(/<button[^>]*value="deny"[^>]*>Deny<\/button>/);
    expect(consent).toContain("<li>Create meetings for you</li>");
  });

  it("allow the page's own style by hash and nothing else", () => {
    const policy = PAGE_HEADERS["content-security-policy"]!;
    expect(policy).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; base-uri 'none'; frame-ancestors 'none'$/);
  });
});
