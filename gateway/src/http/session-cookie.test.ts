import express from "express";
import { describe, expect, it } from "vitest";
import { sessionCookies } from "./session-cookie.ts";

/** The Set-Cookie headers a real Express response carries for `set`, and the parsing of `sessionOf`. */
async function setCookieHeaders(publicUrl: string): Promise<string[]> {
  const cookies = sessionCookies(publicUrl);
  const app = express();
  app.get("/", (_req, res) => {
    cookies.set(res, { sessionToken: "svc_sess_token", csrfToken: "csrf-token", expiresAt: new Date(Date.now() + 3_600_000) });
    res.end();
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const { port } = server.address() as { port: number };
    return (await fetch(`http://127.0.0.1:${port}/`)).headers.getSetCookie();
  } finally {
    server.close();
  }
}

describe("dashboard session cookies", () => {
  it("on https: __Host- prefixed, Secure, HttpOnly+Lax for the session, readable+Strict for the CSRF token", async () => {
    const [session, csrf] = await setCookieHeaders("https://api.example.com");
    expect(session).toMatch(/^__Host-svc_session=svc_sess_token; Max-Age=(3599|3600); Path=\/; Expires=.*; HttpOnly; Secure; SameSite=Lax$/);
    expect(csrf).toMatch(/^__Host-svc_csrf=csrf-token; Max-Age=(3599|3600); Path=\/; Expires=.*; Secure; SameSite=Strict$/);
    expect(session).not.toMatch(/Domain=/);
  });

  it("on plain http (local development): no Secure flag and no __Host- prefix, which browsers would refuse", async () => {
    const [session] = await setCookieHeaders("http://localhost:8080");
    expect(session).toMatch(/^svc_session=svc_sess_token;/);
    expect(session).not.toMatch(/Secure/);
  });

  it("reads only its own cookie from a Cookie header", () => {
    const cookies = sessionCookies("https://api.example.com");
    const request = (cookie: string) => ({ headers: { cookie } }) as unknown as express.Request;
    expect(cookies.sessionOf(request("a=1; __Host-svc_session=svc_sess_x; svc_session=plain"))).toBe("svc_sess_x");
    expect(cookies.sessionOf(request("svc_session=plain"))).toBeUndefined();
    expect(cookies.sessionOf(request(""))).toBeUndefined();
  });
});
