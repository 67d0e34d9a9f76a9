import * as grpc from "@grpc/grpc-js";
import type { components } from "@svc/client";
import { ListSubscriptionsRequestSchema, ListSubscriptionsResponseSchema } from "@svc/proto/svc/webhook/v1/webhook_pb";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { grpcJsClient } from "../support/grpc-js.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { apiBase, callApi } from "../support/rest-client.ts";

// The REST contract of POST/GET/DELETE /api/v1/webhook (docs/decisions/0010-webhook-signing-secrets-and-ssrf-guard.md) with the production
// target rules: https only, private and loopback targets refused.
let tenant: Tenant;
let other: Tenant;

const fixture = useStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "false", WEBHOOK_ALLOW_INSECURE: "false", WEBHOOK_MAX_SUBSCRIPTIONS_PER_ORG: "5" } });

beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(fixture.stack), createTenant(fixture.stack)]);
});

// A public literal address: accepted without DNS, and nothing in these tests sends to it.
const PUBLIC_URL = "https://93.184.215.14/hooks/svc";

/** @svc/client as a tenant's API key (this file's tenant unless told otherwise). */
const client = (as: Tenant = tenant) => fixture.client(as.apiKey);
const onWebhook = (webhookId: string) => ({ params: { path: { webhookId } } });
type Schemas = components["schemas"];
// Bodies and queries are `unknown` and URL-written on purpose: the refusal tests send what the schema does not allow.
const fromQuery = (query: string) => Object.fromEntries(new URLSearchParams(query)) as Record<string, never>;
const create = (body: unknown, as?: Tenant) => client(as).POST("/webhook", { body: body as Schemas["CreateWebhookRequest"] });
const update = (webhookId: string, body: unknown, as?: Tenant) =>
  client(as).PATCH("/webhook/{webhookId}", { ...onWebhook(webhookId), body: body as Schemas["UpdateWebhookRequest"] });
const remove = (body: unknown, as?: Tenant) => client(as).DELETE("/webhook", { body: body as Schemas["DeleteWebhookRequest"] });
const listPage = (query: string, as?: Tenant) => client(as).GET("/webhook", { params: { query: fromQuery(query) } });
const deliveryPage = (webhookId: string, query = "", as?: Tenant) =>
  client(as).GET("/webhook/{webhookId}/deliveries", { params: { path: { webhookId }, query: fromQuery(query) } });
const redeliver = (webhookId: string, deliveryId: string, as?: Tenant) =>
  client(as).POST("/webhook/{webhookId}/deliveries/{deliveryId}/retry", { params: { path: { webhookId, deliveryId } } });
const rotate = (webhookId: string, headers: Record<string, string> = {}) =>
  client().POST("/webhook/{webhookId}/rotate-secret", { ...onWebhook(webhookId), headers });
const recover = (webhookId: string, body: unknown) =>
  client().POST("/webhook/{webhookId}/recover", { ...onWebhook(webhookId), body: body as Schemas["RecoverWebhookRequest"] });

async function register(as: Tenant = tenant, url = PUBLIC_URL) {
  const { data, response } = await create({ url, events: ["meeting.ended"] }, as);
  expect(response.status).toBe(201);
  return data!;
}

const list = async (as: Tenant = tenant) => (await listPage("", as)).data!.webhooks;

/** An answer of @svc/client: the parsed error body beside the untouched response. */
async function expectError(answer: { error?: unknown; response: Response }, status: number, message: RegExp | string) {
  expect(answer.response.status).toBe(status);
  const body = answer.error as { error: string };
  if (typeof message === "string") expect(body.error).toBe(message);
  else expect(body.error).toMatch(message);
}

describe("POST /api/v1/webhook", () => {
  it("answers 201 with webhookId, url, events, a whsec_ secret and createdAt, deduplicating events", async () => {
    const { data, response } = await create({ url: PUBLIC_URL, events: ["meeting.ended", "meeting.ended"] });
    expect(response.status).toBe(201);
    const body = data!;
    expect(Object.keys(body).sort()).toEqual(["createdAt", "description", "events", "rateLimitPerSecond", "secret", "url", "webhookId"]);
    expect(body.description).toBe("");
    expect(body.rateLimitPerSecond).toBeNull();
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
    const { rows } = await fixture.stack.query<{ row: string; sealed: Buffer }>(
      "SELECT s::text AS row, secret_sealed AS sealed FROM webhook.subscriptions s WHERE id = $1",
      [webhookId],
    );
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
    [
      "an unknown event type",
      { url: PUBLIC_URL, events: ["meeting.paused", "meeting.ended"] },
      'events contains unknown event types: "meeting.paused" (known: meeting.started, meeting.ended, meeting.updated, meeting.cancelled, meeting.no_show, participant.joined, participant.left, recording.started, recording.ready, recording.failed, transcript.ready, transcript.failed, webhook.disabled)',
    ],
    ["a url that is not a string", { url: 42, events: ["meeting.ended"] }, "url must be a string"],
    ["events that is not an array", { url: PUBLIC_URL, events: "meeting.ended" }, "events must be an array of strings"],
    ["events with a non-string", { url: PUBLIC_URL, events: [1] }, "events must be an array of strings"],
  ])("refuses %s with 400 naming the problem", async (_label, body, message) => {
    const before = (await list()).length;
    await expectError(await create(body), 400, message);
    expect((await list()).length).toBe(before);
  });

  it("names every problem at once", async () => {
    await expectError(await create({ url: "nope", events: [] }), 400, /url must be an absolute http\(s\) URL; events must be a non-empty array/);
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
    ["https://localhost/hook", /^url host localhost resolves to a non-public address$/],
  ])("refuses the internal target %s (SSRF guard at registration)", async (url, reason) => {
    await expectError(await create({ url, events: ["meeting.ended"] }), 400, reason);
  });

  it("refuses bodies that are not a JSON object, malformed JSON and other content types", async () => {
    await expectError(await create([PUBLIC_URL]), 400, "Request body must be a JSON object");
    // No client sends these two: they go on the wire as they are (callApi), read as an answer.
    const raw = async (options: { rawBody: string; contentType?: string }) => {
      const response = await callApi(apiBase(fixture.stack), "POST", "/webhook", { key: tenant.apiKey, ...options });
      return { error: await response.json(), response };
    };
    await expectError(await raw({ rawBody: '{"url": ' }), 400, "Malformed JSON in request body");
    await expectError(await raw({ rawBody: "url=x", contentType: "application/x-www-form-urlencoded" }), 400, "Content-Type must be application/json");
  });

  it("answers 401 without a valid token", async () => {
    const response = await callApi(apiBase(fixture.stack), "POST", "/webhook", { key: "svc_not_a_real_key", rawBody: "{}" });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/Bearer/);
  });
});

describe("GET /api/v1/webhook", () => {
  it("lists the organization's subscriptions without secrets, and none of another organization's", async () => {
    const mine = await register(other);
    const listed = await list(other);
    expect(listed).toEqual([
      {
        webhookId: mine.webhookId,
        url: mine.url,
        events: ["meeting.ended"],
        createdAt: mine.createdAt,
        disabled: false,
        description: "",
        rateLimitPerSecond: null,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain("whsec_");
    expect((await list(tenant)).map((webhook) => webhook.webhookId)).not.toContain(mine.webhookId);
  });

  it("lists every subscription without paging parameters, and pages oldest first with pageSize and pageToken", async () => {
    const own = await createTenant(fixture.stack);
    const registered = [];
    for (let i = 0; i < 3; i++) registered.push((await register(own)).webhookId);
    const everything = (await listPage("", own)).data!;
    expect(everything.webhooks.map((webhook) => webhook.webhookId)).toEqual(registered);
    expect(everything.nextPageToken).toBeNull();

    const first = (await listPage("pageSize=2", own)).data!;
    expect(first.webhooks.map((webhook) => webhook.webhookId)).toEqual(registered.slice(0, 2));
    expect(first.nextPageToken).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = (await listPage(`pageSize=2&pageToken=${first.nextPageToken}`, own)).data!;
    expect(second.webhooks.map((webhook) => webhook.webhookId)).toEqual(registered.slice(2));
    expect(second.nextPageToken).toBeNull();
    // Another organization's listing, continued with this token, still shows only its own.
    const elsewhere = (await listPage(`pageToken=${first.nextPageToken}`, tenant)).data!;
    expect(elsewhere.webhooks.map((webhook) => webhook.webhookId)).not.toContain(registered[2]);
  });

  it("answers 400 for a page size out of range and a page token it never issued", async () => {
    await expectError(await listPage("pageSize=0"), 400, /pageSize must be an integer between 1 and 100/);
    await expectError(await listPage("pageSize=101"), 400, /pageSize must be between 1 and 100/);
    await expectError(await listPage("pageToken=bm90LWEtY3Vyc29y"), 400, /pageToken is not a token this API returned/);
  });

  it("serves the same organization-scoped list to a plain gRPC client with the same credential", async () => {
    const grpcClient = grpcJsClient(fixture.stack.urls.webhook);
    const response = await grpcClient.unary(
      "/svc.webhook.v1.WebhookService/ListSubscriptions",
      ListSubscriptionsRequestSchema,
      ListSubscriptionsResponseSchema,
      {},
      { authorization: `Bearer ${other.apiKey}` },
    );
    const failure = await grpcClient
      .unary("/svc.webhook.v1.WebhookService/ListSubscriptions", ListSubscriptionsRequestSchema, ListSubscriptionsResponseSchema, {})
      .catch((error: grpc.ServiceError) => error);
    grpcClient.close();
    expect(response.subscriptions.map((s) => s.webhookId)).toEqual((await list(other)).map((w) => w.webhookId));
    expect((failure as grpc.ServiceError).code).toBe(grpc.status.UNAUTHENTICATED);
  });
});

describe("DELETE /api/v1/webhook", () => {
  it("deletes by body: 200 {webhookId, deleted:true}, gone from the list, a second delete is 404", async () => {
    const { webhookId } = await register();
    const { data, response } = await remove({ webhookId });
    expect(response.status).toBe(200);
    expect(data).toEqual({ webhookId, deleted: true });
    expect((await list()).map((webhook) => webhook.webhookId)).not.toContain(webhookId);
    await expectError(await remove({ webhookId }), 404, "Webhook not found");
  });

  it("answers 404 for another organization's subscription and leaves it in place", async () => {
    const theirs = await register(other);
    await expectError(await remove({ webhookId: theirs.webhookId }, tenant), 404, "Webhook not found");
    expect((await list(other)).map((webhook) => webhook.webhookId)).toContain(theirs.webhookId);
  });

  it("answers 404 for an unknown UUID and 400 for a webhookId that is not a UUID or missing", async () => {
    await expectError(await remove({ webhookId: "8f14e45f-ceea-467a-9575-6e2b7c1d5a2b" }), 404, "Webhook not found");
    await expectError(await remove({ webhookId: "not-a-uuid" }), 400, "webhookId must be a UUID");
    await expectError(await remove({}), 400, "webhookId must be a UUID");
    await expectError(await remove({ webhookId: 7 }), 400, "webhookId must be a string");
  });
});

describe("limits and the extension routes", () => {
  it("refuses the subscription over the per-organization limit with 409, and accepts again after a delete", async () => {
    const limited = await createTenant(fixture.stack);
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await register(limited));
    await expectError(await create({ url: PUBLIC_URL, events: ["meeting.ended"] }, limited), 409, /at most 5 webhook subscriptions/);
    await remove({ webhookId: created[0]!.webhookId }, limited);
    await register(limited);
  });

  it("keeps the delivery log, redelivery, test and enable routes organization-scoped", async () => {
    const theirs = await register(other);
    const id = theirs.webhookId;
    await expectError(await deliveryPage(id), 404, "Webhook not found");
    await expectError(await client().POST("/webhook/{webhookId}/test", onWebhook(id)), 404, "Webhook not found");
    await expectError(await client().POST("/webhook/{webhookId}/enable", onWebhook(id)), 404, "Webhook not found");
    await expectError(await redeliver(id, "8f14e45f-ceea-467a-9575-6e2b7c1d5a2b"), 404, "Webhook not found");
    const own = await deliveryPage(id, "", other);
    expect(own.response.status).toBe(200);
    expect(own.data).toEqual({ deliveries: [], nextPageToken: null });
  });

  it("validates ids and pagination parameters with 400", async () => {
    const { webhookId } = await register(other);
    await expectError(await deliveryPage("nope"), 400, "webhookId must be a UUID");
    await expectError(await deliveryPage(webhookId, "pageSize=0", other), 400, "pageSize must be an integer between 1 and 100");
    await expectError(await deliveryPage(webhookId, "pageSize=101", other), 400, "pageSize must be between 1 and 100");
    await expectError(await deliveryPage(webhookId, "pageSize=ten", other), 400, "pageSize must be an integer between 1 and 100");
    await expectError(await deliveryPage(webhookId, "pageToken=forged", other), 400, "pageToken is not a token this API returned");
    await expectError(await redeliver(webhookId, "nope", other), 400, "deliveryId must be a UUID");
    await expectError(await redeliver(webhookId, "8f14e45f-ceea-467a-9575-6e2b7c1d5a2b", other), 404, "Delivery not found");
  });
});

/** The organization limit is 5 here: the management tests start each from an empty organization. */
async function clearSubscriptions(...tenants: Tenant[]) {
  for (const as of tenants) {
    for (const webhook of await list(as)) await remove({ webhookId: webhook.webhookId }, as);
  }
}

describe("PATCH /api/v1/webhook/:webhookId", () => {
  beforeEach(() => clearSubscriptions(tenant, other));

  it("changes only the fields sent: url, events (deduplicated), description, rate limit; null removes the limit", async () => {
    const { webhookId, createdAt } = await register();
    const { data, response } = await update(webhookId, {
      url: "https://93.184.215.15/v2",
      events: ["meeting.started", "meeting.started", "webhook.disabled"],
      description: "  Calendar sync  ",
      rateLimitPerSecond: 20,
    });
    expect(response.status).toBe(200);
    expect(data).toEqual({
      webhookId,
      url: "https://93.184.215.15/v2",
      events: ["meeting.started", "webhook.disabled"],
      createdAt,
      disabled: false,
      description: "Calendar sync",
      rateLimitPerSecond: 20,
    });
    const unlimited = await update(webhookId, { rateLimitPerSecond: null });
    expect(unlimited.data).toMatchObject({ url: "https://93.184.215.15/v2", description: "Calendar sync", rateLimitPerSecond: null });
  });

  it("disables and re-enables explicitly, saying who disabled it", async () => {
    const { webhookId } = await register();
    const disabled = await update(webhookId, { disabled: true });
    expect(disabled.data).toMatchObject({ disabled: true, disabledReason: "disabled by the organization" });
    await expectError(await client().POST("/webhook/{webhookId}/test", onWebhook(webhookId)), 409, /disabled/);
    const enabled = await update(webhookId, { disabled: false });
    const body = enabled.data!;
    expect(body.disabled).toBe(false);
    expect(body.disabledAt).toBeUndefined();
  });

  it.each([
    ["https://127.0.0.1/hook", /loopback/],
    ["https://10.0.0.8/hook", /private/],
    ["https://169.254.169.254/latest/meta-data", /cloud metadata/],
    ["https://[fd00::1]/hook", /non-global IPv6/],
    ["https://localhost/hook", /^url host localhost resolves to a non-public address$/],
    ["http://93.184.215.14/x", "url must use https"],
    ["https://user:pw@example.com/x", "url must not contain credentials"],
  ])("refuses the url %s exactly as registration does, and changes nothing", async (url, reason) => {
    const { webhookId } = await register();
    const registration = await create({ url, events: ["meeting.ended"] });
    const patch = await update(webhookId, { url });
    expect(patch.response.status).toBe(registration.response.status);
    expect(patch.error?.error).toBe(registration.error?.error);
    await expectError(patch, 400, reason);
    expect((await list()).find((webhook) => webhook.webhookId === webhookId)?.url).toBe(PUBLIC_URL);
  });

  it.each([
    ["an empty body", {}, "nothing to change: set at least one of url, events, description, disabled, rateLimitPerSecond"],
    ["empty events", { events: [] }, /^events must be a non-empty array of event types/],
    ["an unknown event type", { events: ["meeting.paused"] }, /^events contains unknown event types: "meeting.paused"/],
    ["a description over 500 characters", { description: "x".repeat(501) }, "description must be at most 500 characters"],
    ["a description with a control character", { description: "a\u0007b" }, "description must not contain control characters other than newline and tab"],
    ["a rate limit of 0", { rateLimitPerSecond: 0 }, /rateLimitPerSecond must be an integer between 1 and 1000/],
    ["a rate limit over 1000", { rateLimitPerSecond: 1001 }, /rateLimitPerSecond must be an integer between 1 and 1000/],
    ["a fractional rate limit", { rateLimitPerSecond: 2.5 }, "rateLimitPerSecond must be a whole number or null"],
    ["disabled that is not a boolean", { disabled: "yes" }, "disabled must be true or false"],
    ["a url that is not a string", { url: 7 }, "url must be a string"],
  ])("refuses %s with 400", async (_label, body, message) => {
    const { webhookId } = await register();
    await expectError(await update(webhookId, body), 400, message);
  });

  it("answers 400 for an id that is not a UUID, 404 for an unknown one and for another organization's, 401 without a token", async () => {
    const theirs = await register(other);
    await expectError(await update("nope", { description: "x" }), 400, "webhookId must be a UUID");
    await expectError(await update("8f14e45f-ceea-467a-9575-6e2b7c1d5a2b", { description: "x" }), 404, "Webhook not found");
    await expectError(await update(theirs.webhookId, { description: "mine now" }), 404, "Webhook not found");
    expect((await list(other)).find((webhook) => webhook.webhookId === theirs.webhookId)?.description).toBe("");
    const anonymous = await callApi(apiBase(fixture.stack), "PATCH", `/webhook/${theirs.webhookId}`, { rawBody: "{}" });
    expect(anonymous.status).toBe(401);
  });
});

describe("POST /api/v1/webhook/:webhookId/rotate-secret", () => {
  beforeEach(() => clearSubscriptions(tenant, other));
  it("returns a new secret once, keeps the previous one signing for the grace window, and replays with an Idempotency-Key", async () => {
    const { webhookId, secret } = await register();
    const { data, response } = await rotate(webhookId);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const rotated = data!;
    expect(rotated.webhookId).toBe(webhookId);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(secret);
    // The default grace window: 24 hours.
    expect(Math.abs(Date.parse(rotated.previousSecretExpiresAt!) - Date.now() - 24 * 3600_000)).toBeLessThan(60_000);
    expect((await list()).find((webhook) => webhook.webhookId === webhookId)).toMatchObject({ previousSecretExpiresAt: rotated.previousSecretExpiresAt });
    expect(JSON.stringify(await list())).not.toContain("whsec_");

    const { rows } = await fixture.stack.query<{ row: string }>("SELECT s::text AS row FROM webhook.subscriptions s WHERE id = $1", [webhookId]);
    for (const clear of [secret, rotated.secret]) expect(rows[0]!.row).not.toContain(Buffer.from(clear.slice(6), "base64").toString("hex"));

    const headers = { "idempotency-key": `rotate-${webhookId}` };
    const first = await rotate(webhookId, headers);
    const again = await rotate(webhookId, headers);
    expect(again.response.headers.get("idempotent-replayed")).toBe("true");
    expect(again.data!.secret).toBe(first.data!.secret);
  });

  it("answers 404 for another organization's subscription and rotates nothing of it, 400 for a malformed id", async () => {
    const theirs = await register(other);
    await expectError(await rotate(theirs.webhookId), 404, "Webhook not found");
    expect((await list(other)).find((webhook) => webhook.webhookId === theirs.webhookId)?.previousSecretExpiresAt).toBeUndefined();
    await expectError(await rotate("nope"), 400, "webhookId must be a UUID");
  });
});

describe("POST /api/v1/webhook/:webhookId/recover", () => {
  beforeEach(() => clearSubscriptions(tenant, other));
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000).toISOString();

  it("answers 202 with the count and the window (nothing failed yet: 0)", async () => {
    const { webhookId } = await register();
    const since = hoursAgo(2);
    const { data, response } = await recover(webhookId, { since });
    expect(response.status).toBe(202);
    const body = data!;
    expect(body).toMatchObject({ webhookId, recovered: 0, since });
    expect(Math.abs(Date.parse(body.until) - Date.now())).toBeLessThan(60_000);
  });

  it.each([
    ["a missing since", {}, "since is required (an ISO 8601 date-time with a UTC offset)"],
    ["a since without an offset", { since: "2030-01-01T00:00:00" }, /^since must include a UTC offset/],
    ["a since over 14 days ago", { since: hoursAgo(24 * 14 + 1) }, "since must be at most 14 days ago"],
    ["an until before since", { since: hoursAgo(1), until: hoursAgo(2) }, "until must be after since"],
    ["a since that is not a string", { since: 5 }, "since must be a string (an ISO 8601 date-time) or null"],
  ])("refuses %s with 400", async (_label, body, message) => {
    const { webhookId } = await register();
    await expectError(await recover(webhookId, body), 400, message);
  });

  it("answers 404 for another organization's subscription and 409 for a disabled one", async () => {
    const theirs = await register(other);
    await expectError(await recover(theirs.webhookId, { since: hoursAgo(1) }), 404, "Webhook not found");
    const { webhookId } = await register();
    await update(webhookId, { disabled: true });
    await expectError(await recover(webhookId, { since: hoursAgo(1) }), 409, /disabled/);
  });
});

describe("GET /api/v1/event-types", () => {
  it("lists every subscribable type with its description and the JSON Schema of its data", async () => {
    const { data, response } = await client().GET("/event-types");
    expect(response.status).toBe(200);
    // The schemas are JSON Schema documents: walked by the names this test knows.
    const { eventTypes } = data as { eventTypes: { type: string; description: string; schema: Record<string, any> }[] };
    expect(eventTypes.map((entry) => entry.type)).toEqual([
      "meeting.started",
      "meeting.ended",
      "meeting.updated",
      "meeting.cancelled",
      "meeting.no_show",
      "participant.joined",
      "participant.left",
      "recording.started",
      "recording.ready",
      "recording.failed",
      "transcript.ready",
      "transcript.failed",
      "webhook.disabled",
    ]);
    const ended = eventTypes.find((entry) => entry.type === "meeting.ended")!;
    expect(ended.description).toMatch(/^The meeting ended/);
    expect(ended.schema.type).toBe("object");
    expect(ended.schema.required).toEqual(expect.arrayContaining(["meetingId", "endedAt", "reason", "participants"]));
    expect(ended.schema.properties.reason.anyOf[0].enum).toEqual(["empty", "ended_by_api", "end_passed", "ended_by_host"]);
    // The same schema the OpenAPI document gives the event's data.
    const document = await (await fetch(`${fixture.stack.gatewayUrl}/api/v1/openapi.json`)).json();
    const documented = document.components.schemas.MeetingEndedEvent.properties.data;
    expect(Object.keys(ended.schema.properties).sort()).toEqual(Object.keys(documented.properties).sort());
    expect(eventTypes.find((entry) => entry.type === "webhook.disabled")!.schema.properties.trigger.enum).toEqual(["gone", "continuous_failure"]);
  });

  it("answers 401 without a valid token", async () => {
    expect((await fetch(`${fixture.stack.gatewayUrl}/api/v1/event-types`)).status).toBe(401);
  });
});

describe("delivery log filters", () => {
  beforeEach(() => clearSubscriptions(tenant, other));
  it("validates status, statusClass and the window with 400", async () => {
    const { webhookId } = await register();
    await expectError(await deliveryPage(webhookId, "status=lost"), 400, "status must be one of pending, succeeded, failed, cancelled");
    await expectError(await deliveryPage(webhookId, "statusClass=6xx"), 400, "statusClass must be one of 2xx, 3xx, 4xx, 5xx, none");
    await expectError(await deliveryPage(webhookId, "since=yesterday"), 400, /^since must be an ISO 8601 date-time with a UTC offset/);
    await expectError(await deliveryPage(webhookId, "since=2030-01-02T00:00:00Z&until=2030-01-01T00:00:00Z"), 400, "until must be after since");
    const filtered = await deliveryPage(webhookId, "status=failed&statusClass=5xx&since=2020-01-01T00:00:00Z");
    expect(filtered.response.status).toBe(200);
    expect(filtered.data).toEqual({ deliveries: [], nextPageToken: null });
  });
});
