import * as grpc from "@grpc/grpc-js";
import { ListSubscriptionsRequestSchema, ListSubscriptionsResponseSchema } from "@svc/proto/svc/webhook/v1/webhook_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcJsClient } from "../support/grpc-js.ts";
import { startStack, type Stack } from "../support/stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";

// The REST contract of POST/GET/DELETE /api/v1/webhook (docs/decisions/0010-webhook-signing-secrets-and-ssrf-guard.md) with the production
// target rules: https only, private and loopback targets refused.
let stack: Stack;
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  stack = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "false", WEBHOOK_ALLOW_INSECURE: "false", WEBHOOK_MAX_SUBSCRIPTIONS_PER_ORG: "5" } });
  [tenant, other] = await Promise.all([createTenant(stack), createTenant(stack)]);
});
afterAll(async () => stack?.stop());

// A public literal address: accepted without DNS, and nothing in these tests sends to it.
const PUBLIC_URL = "https://93.184.215.14/hooks/svc";

function call(method: string, path: string, options: { as?: Tenant; body?: unknown; rawBody?: string; contentType?: string } = {}) {
  const as = options.as ?? tenant;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  return fetch(`${stack.gatewayUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${as.apiKey}`, ...(body !== undefined ? { "content-type": options.contentType ?? "application/json" } : {}) },
    body,
  });
}

async function register(as: Tenant = tenant, url = PUBLIC_URL) {
  const response = await call("POST", "/webhook", { as, body: { url, events: ["meeting.ended"] } });
  expect(response.status).toBe(201);
  return (await response.json()) as { webhookId: string; url: string; events: string[]; secret: string; createdAt: string };
}

const list = async (as: Tenant = tenant) => ((await (await call("GET", "/webhook", { as })).json()) as { webhooks: Record<string, unknown>[] }).webhooks;

async function expectError(response: Response, status: number, message: RegExp | string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: string };
  if (typeof message === "string") expect(body.error).toBe(message);
  else expect(body.error).toMatch(message);
}

describe("POST /api/v1/webhook", () => {
  it("answers 201 with webhookId, url, events, a whsec_ secret and createdAt, deduplicating events", async () => {
    const response = await call("POST", "/webhook", { body: { url: PUBLIC_URL, events: ["meeting.ended", "meeting.ended"] } });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(["createdAt", "events", "secret", "url", "webhookId"]);
    expect(body.webhookId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(body.url).toBe(PUBLIC_URL);
    expect(body.events).toEqual(["meeting.ended"]);
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(body.secret.slice(6), "base64")).toHaveLength(32);
    expect(Math.abs(Date.parse(body.createdAt) - Date.now())).toBeLessThan(60_000);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("stores the secret encrypted: neither the secret nor its key bytes appear in the database", async () => {
    const { webhookId, secret } = await register();
    const { rows } = await stack.query<{ row: string; sealed: Buffer }>("SELECT s::text AS row, secret_sealed AS sealed FROM webhook.subscriptions s WHERE id = $1", [webhookId]);
    expect(rows[0]!.row).not.toContain(secret.slice(6));
    expect(rows[0]!.sealed.includes(Buffer.from(secret.slice(6), "base64"))).toBe(false);
    expect(rows[0]!.sealed.length).toBeGreaterThan(32);
  });

  it.each([
    ["a missing url", { events: ["meeting.ended"] }, "url is required"],
    ["a relative url", { url: "/relative", events: ["meeting.ended"] }, "url must be an absolute http(s) URL"],
    ["an ftp url", { url: "ftp://example.com/x", events: ["meeting.ended"] }, "url must be an absolute http(s) URL"],
    ["a plain http url", { url: "http://93.184.215.14/x", events: ["meeting.ended"] }, "url must use https"],
    ["a url over 2048 characters", { url: `https://example.com/${"a".repeat(2030)}`, events: ["meeting.ended"] }, "url must be at most 2048 characters"],
    ["a url with credentials", { url: "https://user:pw@example.com/x", events: ["meeting.ended"] }, "url must not contain credentials"],
    ["missing events", { url: PUBLIC_URL }, /^events must be a non-empty array of event types/],
    ["empty events", { url: PUBLIC_URL, events: [] }, /^events must be a non-empty array of event types/],
    ["an unknown event type", { url: PUBLIC_URL, events: ["meeting.paused", "meeting.ended"] }, 'events contains unknown event types: "meeting.paused" (known: meeting.started, meeting.ended, meeting.updated, meeting.cancelled, participant.joined, participant.left)'],
    ["a url that is not a string", { url: 42, events: ["meeting.ended"] }, "url must be a string"],
    ["events that is not an array", { url: PUBLIC_URL, events: "meeting.ended" }, "events must be an array of strings"],
    ["events with a non-string", { url: PUBLIC_URL, events: [1] }, "events must be an array of strings"],
  ])("refuses %s with 400 naming the problem", async (_label, body, message) => {
    const before = (await list()).length;
    await expectError(await call("POST", "/webhook", { body }), 400, message);
    expect((await list()).length).toBe(before);
  });

  it("names every problem at once", async () => {
    await expectError(await call("POST", "/webhook", { body: { url: "nope", events: [] } }), 400, /url must be an absolute http\(s\) URL; events must be a non-empty array/);
  });

  it.each([
    ["https://127.0.0.1/hook", /loopback/],
    ["https://10.0.0.8/hook", /private/],
    ["https://192.168.1.20:8443/hook", /private/],
    ["https://169.254.169.254/latest/meta-data", /cloud metadata/],
    ["https://100.64.1.1/hook", /carrier-grade NAT/],
    ["https://[::1]/hook", /non-global IPv6/],
    ["https://[fd00::1]/hook", /non-global IPv6/],
    ["https://[::ffff:127.0.0.1]/hook", /loopback/],
    ["https://localhost/hook", /localhost resolves to/],
  ])("refuses the internal target %s (SSRF guard at registration)", async (url, reason) => {
    await expectError(await call("POST", "/webhook", { body: { url, events: ["meeting.ended"] } }), 400, reason);
  });

  it("refuses bodies that are not a JSON object, malformed JSON and other content types", async () => {
    await expectError(await call("POST", "/webhook", { body: [PUBLIC_URL] }), 400, "Request body must be a JSON object");
    await expectError(await call("POST", "/webhook", { rawBody: '{"url": ' }), 400, "Malformed JSON in request body");
    await expectError(await call("POST", "/webhook", { rawBody: "url=x", contentType: "application/x-www-form-urlencoded" }), 400, "Content-Type must be application/json");
  });

  it("answers 401 without a valid token", async () => {
    const response = await fetch(`${stack.gatewayUrl}/api/v1/webhook`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer svc_not_a_real_key" }, body: "{}" });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/Bearer/);
  });
});

describe("GET /api/v1/webhook", () => {
  it("lists the organization's subscriptions without secrets, and none of another organization's", async () => {
    const mine = await register(other);
    const listed = await list(other);
    expect(listed).toEqual([{ webhookId: mine.webhookId, url: mine.url, events: ["meeting.ended"], createdAt: mine.createdAt, disabled: false }]);
    expect(JSON.stringify(listed)).not.toContain("whsec_");
    expect((await list(tenant)).map((webhook) => webhook.webhookId)).not.toContain(mine.webhookId);
  });

  it("serves the same organization-scoped list to a plain gRPC client with the same credential", async () => {
    const client = grpcJsClient(stack.urls.webhook);
    const response = await client.unary(
      "/svc.webhook.v1.WebhookService/ListSubscriptions",
      ListSubscriptionsRequestSchema,
      ListSubscriptionsResponseSchema,
      {},
      { authorization: `Bearer ${other.apiKey}` },
    );
    const failure = await client
      .unary("/svc.webhook.v1.WebhookService/ListSubscriptions", ListSubscriptionsRequestSchema, ListSubscriptionsResponseSchema, {})
      .catch((error: grpc.ServiceError) => error);
    client.close();
    expect(response.subscriptions.map((s) => s.webhookId)).toEqual((await list(other)).map((w) => w.webhookId));
    expect((failure as grpc.ServiceError).code).toBe(grpc.status.UNAUTHENTICATED);
  });
});

describe("DELETE /api/v1/webhook", () => {
  it("deletes by body: 200 {webhookId, deleted:true}, gone from the list, a second delete is 404", async () => {
    const { webhookId } = await register();
    const response = await call("DELETE", "/webhook", { body: { webhookId } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ webhookId, deleted: true });
    expect((await list()).map((webhook) => webhook.webhookId)).not.toContain(webhookId);
    await expectError(await call("DELETE", "/webhook", { body: { webhookId } }), 404, "Webhook not found");
  });

  it("answers 404 for another organization's subscription and leaves it in place", async () => {
    const theirs = await register(other);
    await expectError(await call("DELETE", "/webhook", { as: tenant, body: { webhookId: theirs.webhookId } }), 404, "Webhook not found");
    expect((await list(other)).map((webhook) => webhook.webhookId)).toContain(theirs.webhookId);
  });

  it("answers 404 for an unknown UUID and 400 for a webhookId that is not a UUID or missing", async () => {
    await expectError(await call("DELETE", "/webhook", { body: { webhookId: "8f14e45f-ceea-467a-9575-6e2b7c1d5a2b" } }), 404, "Webhook not found");
    await expectError(await call("DELETE", "/webhook", { body: { webhookId: "not-a-uuid" } }), 400, "webhookId must be a UUID");
    await expectError(await call("DELETE", "/webhook", { body: {} }), 400, "webhookId must be a UUID");
    await expectError(await call("DELETE", "/webhook", { body: { webhookId: 7 } }), 400, "webhookId must be a string");
  });
});

describe("limits and the extension routes", () => {
  it("refuses the subscription over the per-organization limit with 409, and accepts again after a delete", async () => {
    const limited = await createTenant(stack);
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await register(limited));
    await expectError(await call("POST", "/webhook", { as: limited, body: { url: PUBLIC_URL, events: ["meeting.ended"] } }), 409, /at most 5 webhook subscriptions/);
    await call("DELETE", "/webhook", { as: limited, body: { webhookId: created[0]!.webhookId } });
    await register(limited);
  });

  it("keeps the delivery log, redelivery, test and enable routes organization-scoped", async () => {
    const theirs = await register(other);
    const id = theirs.webhookId;
    await expectError(await call("GET", `/webhook/${id}/deliveries`), 404, "Webhook not found");
    await expectError(await call("POST", `/webhook/${id}/test`), 404, "Webhook not found");
    await expectError(await call("POST", `/webhook/${id}/enable`), 404, "Webhook not found");
    await expectError(await call("POST", `/webhook/${id}/deliveries/8f14e45f-ceea-467a-9575-6e2b7c1d5a2b/retry`), 404, "Webhook not found");
    const own = await call("GET", `/webhook/${id}/deliveries`, { as: other });
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ deliveries: [], nextPageToken: null });
  });

  it("validates ids and pagination parameters with 400", async () => {
    const { webhookId } = await register(other);
    await expectError(await call("GET", "/webhook/nope/deliveries"), 400, "webhookId must be a UUID");
    await expectError(await call("GET", `/webhook/${webhookId}/deliveries?pageSize=0`, { as: other }), 400, "pageSize must be an integer between 1 and 100");
    await expectError(await call("GET", `/webhook/${webhookId}/deliveries?pageSize=101`, { as: other }), 400, "pageSize must be between 1 and 100");
    await expectError(await call("GET", `/webhook/${webhookId}/deliveries?pageSize=ten`, { as: other }), 400, "pageSize must be an integer between 1 and 100");
    await expectError(await call("GET", `/webhook/${webhookId}/deliveries?pageToken=forged`, { as: other }), 400, "pageToken is not a token this API returned");
    await expectError(await call("POST", `/webhook/${webhookId}/deliveries/nope/retry`, { as: other }), 400, "deliveryId must be a UUID");
    await expectError(await call("POST", `/webhook/${webhookId}/deliveries/8f14e45f-ceea-467a-9575-6e2b7c1d5a2b/retry`, { as: other }), 404, "Delivery not found");
  });
});
