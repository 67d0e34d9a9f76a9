import { describe, expect, it } from "vitest";
import { redirectUriProblem } from "./redirect-uri.ts";

describe("redirect URI rules", () => {
  const production = { requireHttps: true };
  const development = { requireHttps: false };

  it("in production: https, or plain http only to a loopback address (RFC 8252)", () => {
    expect(redirectUriProblem("https://cal.example/callback", production)).toBeUndefined();
    for (const loopback of ["http://127.0.0.1:5173/callback", "http://[::1]:8000/cb", "http://localhost/cb"]) {
      expect(redirectUriProblem(loopback, production), loopback).toBeUndefined();
    }
    for (const plain of ["http://cal.example/callback", "http://127.0.0.1.nip.io/cb", "http://localhost.evil.example/cb", "http://10.0.0.5/cb"]) {
      expect(redirectUriProblem(plain, production), plain).toMatch(/must be https/);
    }
  });

  it("in development plain http is allowed anywhere; the other rules hold in both", () => {
    expect(redirectUriProblem("http://cal.example/callback", development)).toBeUndefined();
    for (const policy of [production, development]) {
      expect(redirectUriProblem("https://cal.example/cb#frag", policy)).toMatch(/fragment/);
      expect(redirectUriProblem("https://user:pw@cal.example/cb", policy)).toMatch(/credentials/);
      expect(redirectUriProblem("ftp://cal.example/cb", policy)).toMatch(/http\(s\)/);
      // RFC 3986 allows `*` in a host; no browser can be redirected there (found by schemathesis).
      expect(redirectUriProblem("https://wx.68.com*", policy)).toMatch(/host/);
      expect(redirectUriProblem("https://cal.example!/cb", policy)).toMatch(/host/);
    }
  });
});
