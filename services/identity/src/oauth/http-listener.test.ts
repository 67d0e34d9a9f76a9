import { createLogger } from "@svc/platform";
import { afterEach, describe, expect, it } from "vitest";
import type { OAuthClientRecord } from "../oauth-stores.ts";
import { startOAuthHttpListener, type RunningOAuthHttpListener } from "./http-listener.ts";
import { stubbedOAuthProvider } from "./provider/in-memory-provider.ts";

// Issue 33, finding 5: the authorization server took its scheme and host from X-Forwarded-* (which
// the gateway filled from the browser's Host). Here the real provider runs behind its real
// listener, with storage stubbed (nothing below reads the database but the client lookup).

const client: OAuthClientRecord = {
  clientId: "app",
  orgId: "org",
  name: "App",
  redirectUris: ["https://app.example.com/callback"],
  scopes: ["meeting.read"],
  secretHash: "0".repeat(64),
  requirePkce: false,
  createdAt: new Date(),
};

let listener: RunningOAuthHttpListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

async function serve(publicUrl: string) {
  const provider = stubbedOAuthProvider(new URL(publicUrl).origin, [client]);
  listener = await startOAuthHttpListener({ provider, publicUrl, host: "127.0.0.1", port: 0, logger: createLogger("test", "silent") });
  return `http://127.0.0.1:${listener.port}`;
}

/** What a client (or a proxy passing its headers on) sends to move the server somewhere else. */
const hostile = { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "http", forwarded: "host=evil.example;proto=http" };

describe("the authorization server's URLs and cookies come from PUBLIC_URL, never from the request", () => {
  it("RFC 8414 metadata names PUBLIC_URL for the issuer and every endpoint, whatever Host and X-Forwarded-* say", async () => {
    const base = await serve("https://meet.example.com");
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`, { headers: hostile })).json()) as Record<string, string>;
    expect(metadata.issuer).toBe("https://meet.example.com");
    expect(metadata.authorization_endpoint).toBe("https://meet.example.com/oauth/authorize");
    expect(metadata.token_endpoint).toBe("https://meet.example.com/api/oauth/token");
    expect(metadata.revocation_endpoint).toBe("https://meet.example.com/api/oauth/revoke");
    expect(JSON.stringify(metadata)).not.toContain("evil.example");
  });

  it("behind TLS termination (an https PUBLIC_URL reached over http), the interaction cookies are Secure and the redirect stays on PUBLIC_URL", async () => {
    const base = await serve("https://meet.example.com");
    const query = new URLSearchParams({ client_id: "app", redirect_uri: client.redirectUris[0]!, response_type: "code", scope: "meeting.read", state: "s" });
    const response = await fetch(`${base}/oauth/authorize?${query}`, { headers: hostile, redirect: "manual" });
    expect(response.status).toBe(303);
    // A path on the same origin (the browser is on PUBLIC_URL), never another host.
    expect(response.headers.get("location")).toMatch(/^\/oauth\/interaction\/[\w-]+$/);
    const cookies = response.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie.toLowerCase()).toContain("; secure");
  });
});
