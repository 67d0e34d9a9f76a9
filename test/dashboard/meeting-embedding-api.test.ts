import { identityLimits } from "@svc/platform/contract";
import { beforeAll, describe, expect, it } from "vitest";
import { apiBase, callApi } from "../support/rest-client.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { useStack } from "../support/use-stack.ts";
import { bearerCall, openSession, type DashboardSession } from "./support/dashboard-session.ts";

/**
 * Issue 42, embedding: an organization's admin lists the origins allowed to frame its meetings
 * (GET/PUT /api/v1/meeting-embedding, kept by identity), and the join page of each of its meetings
 * sends exactly those in frame-ancestors. Validation, who may call, and organization isolation.
 * The browser side (a parent page on another origin) is test/meeting-room/room-embed.test.ts.
 */

let orgA: Tenant;
let orgB: Tenant;
let adminA: DashboardSession;
let adminB: DashboardSession;
let memberA: DashboardSession;

const fixture = useStack();
beforeAll(async () => {
  orgA = await createTenant(fixture.stack, { name: "Embedder A" });
  orgB = await createTenant(fixture.stack, { name: "Embedder B" });
  adminA = await openSession(fixture.stack, orgA.email, orgA.password);
  adminB = await openSession(fixture.stack, orgB.email, orgB.password);
  const member = { email: `member-${orgA.orgId.slice(0, 8)}@example.com`, password: "member password 1" };
  expect((await adminA.call("POST", "/users", member)).status).toBe(201);
  memberA = await openSession(fixture.stack, member.email, member.password);
});

/** A meeting of the tenant's organization, created with its API key. */
async function meetingOf(tenant: Tenant): Promise<string> {
  const response = await callApi(apiBase(fixture.stack), "POST", "/meeting", { key: tenant.apiKey, body: { title: "Embedded meeting" } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { url: string }).url;
}

/** The join page's frame-ancestors sources, its X-Frame-Options, and the origins it tells its script. */
async function framingOf(url: string) {
  const response = await fetch(url);
  const policy = response.headers.get("content-security-policy") ?? "";
  const html = await response.text();
  return {
    status: response.status,
    frameAncestors: /(?:^|;)\s*frame-ancestors ([^;]*)/.exec(policy)?.[1]?.trim().split(/\s+/),
    otherDirectives: policy
      .split(";")
      .map((part) => part.trim())
      .filter((part) => part && !part.startsWith("frame-ancestors")),
    xFrameOptions: response.headers.get("x-frame-options"),
    embedOriginsAttribute: /data-embed-origins="([^"]*)"/.exec(html)?.[1],
  };
}

describe("GET/PUT /meeting-embedding: the origins allowed to frame the organization's meetings", () => {
  it("starts empty; an admin sets the list, which comes back normalized, each origin once, in order", async () => {
    expect(await adminA.call("GET", "/meeting-embedding")).toMatchObject({ status: 200, body: { allowedOrigins: [] } });
    const set = await adminA.call("PUT", "/meeting-embedding", {
      allowedOrigins: ["https://Scheduler.Example.com/", "https://scheduler.example.com:443", "https://app.example.org:8443", " http://localhost:3000 "],
    });
    expect(set.status).toBe(200);
    expect(set.headers.get("cache-control")).toBe("no-store");
    expect(set.body).toEqual({ allowedOrigins: ["https://scheduler.example.com", "https://app.example.org:8443", "http://localhost:3000"] });
    expect((await adminA.call("GET", "/meeting-embedding")).body).toEqual(set.body);
  });

  it.each([
    ["plain http to a host that is not loopback", ["http://scheduler.example.com"], /"http:\/\/scheduler.example.com" must be https/],
    ["a path", ["https://scheduler.example.com/embed"], /no path, query or fragment/],
    ["a wildcard", ["https://*.example.com"], /no wildcard/],
    ["an IP address", ["https://203.0.113.9"], /no IP address/],
    ["another scheme", ["javascript:alert(1)"], /must be an origin such as/],
    ["an empty origin", [""], /is empty/],
    [
      `more than ${identityLimits.embedOriginsMax} origins`,
      Array.from({ length: identityLimits.embedOriginsMax + 1 }, (_, i) => `https://s${i}.example`),
      /at most 25 origins/,
    ],
    ["no list", undefined, /allowedOrigins is required/],
    ["a list of numbers", [1, 2], /allowedOrigins/],
  ])("refuses %s with 400 naming the problem, and changes nothing", async (_what, allowedOrigins, message) => {
    const before = (await adminA.call("GET", "/meeting-embedding")).body;
    const refused = await adminA.call("PUT", "/meeting-embedding", allowedOrigins === undefined ? {} : { allowedOrigins });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(message);
    expect((await adminA.call("GET", "/meeting-embedding")).body).toEqual(before);
  });

  it("is each organization's own: another admin sees and changes only theirs", async () => {
    await adminA.call("PUT", "/meeting-embedding", { allowedOrigins: ["https://a-only.example"] });
    expect((await adminB.call("GET", "/meeting-embedding")).body).toEqual({ allowedOrigins: [] });
    expect((await adminB.call("PUT", "/meeting-embedding", { allowedOrigins: ["https://b-only.example"] })).status).toBe(200);
    expect((await adminA.call("GET", "/meeting-embedding")).body).toEqual({ allowedOrigins: ["https://a-only.example"] });
    expect((await adminB.call("GET", "/meeting-embedding")).body).toEqual({ allowedOrigins: ["https://b-only.example"] });
  });

  it("only an admin's dashboard session: a member, an API key, or a session without its CSRF token get 403 and change nothing", async () => {
    await adminA.call("PUT", "/meeting-embedding", { allowedOrigins: ["https://kept.example"] });
    for (const refused of [
      await memberA.call("GET", "/meeting-embedding"),
      await memberA.call("PUT", "/meeting-embedding", { allowedOrigins: ["https://member.example"] }),
      await bearerCall(fixture.stack, orgA.apiKey, "GET", "/meeting-embedding"),
      await bearerCall(fixture.stack, orgA.apiKey, "PUT", "/meeting-embedding", { allowedOrigins: ["https://leaked-key.example"] }),
      await adminA.call("PUT", "/meeting-embedding", { allowedOrigins: ["https://forged.example"] }, { csrf: false }),
    ]) {
      expect(refused.status).toBe(403);
    }
    expect((await adminA.call("GET", "/meeting-embedding")).body).toEqual({ allowedOrigins: ["https://kept.example"] });
  });
});

describe("the join page's frame-ancestors follow the meeting's organization", () => {
  it("names exactly the organization's origins (no X-Frame-Options), tells the script the same list, and keeps every other directive as strict", async () => {
    const urlA = await meetingOf(orgA);
    const urlB = await meetingOf(orgB);
    await adminA.call("PUT", "/meeting-embedding", { allowedOrigins: [] });
    const closed = await framingOf(urlA);
    expect(closed).toMatchObject({ status: 200, frameAncestors: ["'none'"], xFrameOptions: "DENY", embedOriginsAttribute: undefined });

    await adminA.call("PUT", "/meeting-embedding", { allowedOrigins: ["https://scheduler.example.com", "http://localhost:3000"] });
    await adminB.call("PUT", "/meeting-embedding", { allowedOrigins: ["https://b-only.example"] });
    const open = await framingOf(urlA);
    expect(open).toMatchObject({
      status: 200,
      frameAncestors: ["https://scheduler.example.com", "http://localhost:3000"],
      xFrameOptions: null,
      embedOriginsAttribute: "https://scheduler.example.com http://localhost:3000",
    });
    expect(open.otherDirectives).toEqual(closed.otherDirectives);
    // Organization B's list never reaches A's meetings, nor A's B's.
    expect((await framingOf(urlB)).frameAncestors).toEqual(["https://b-only.example"]);

    // Emptied again: 'none' at once (no cache in between).
    await adminA.call("PUT", "/meeting-embedding", { allowedOrigins: [] });
    expect(await framingOf(urlA)).toMatchObject({ frameAncestors: ["'none'"], xFrameOptions: "DENY", embedOriginsAttribute: undefined });
  });

  it("an unknown meeting's page keeps frame-ancestors 'none'", async () => {
    const unknown = await framingOf(`${fixture.stack.gatewayUrl}/meeting/AAAAAAAAAAAAAAAAAAAAAA`);
    expect(unknown).toMatchObject({ status: 404, frameAncestors: ["'none'"], xFrameOptions: "DENY" });
  });
});
