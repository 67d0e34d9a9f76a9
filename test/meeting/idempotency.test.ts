import { createHash, randomUUID } from "node:crypto";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { apiBase, callApi } from "../support/rest-client.ts";

// Idempotency-Key (draft-ietf-httpapi-idempotency-key-header) on POST /meeting and POST /webhook,
// through the gateway to the services' own tables.
let tenant: Tenant;
let other: Tenant;

const fixture = useStack();

beforeAll(async () => {
  [tenant, other] = await Promise.all([createTenant(fixture.stack), createTenant(fixture.stack)]);
});

const post = (path: string, body: unknown, key?: string, as: Tenant = tenant) =>
  callApi(apiBase(fixture.stack), "POST", path, { key: as.apiKey, body, headers: key === undefined ? {} : { "idempotency-key": key } });

/** How a key is stored and locked: SHA-256 of the sending credential (user, OAuth client: none for an API key) and the key. */
const storedKeyOf = (as: Tenant, key: string) => createHash("sha256").update(`${as.userId}\0\0${key}`).digest("hex");

const countMeetings = async (orgId: string) =>
  (await fixture.stack.query<{ n: number }>("SELECT count(*)::int AS n FROM meeting.meetings WHERE org_id = $1", [orgId])).rows[0]!.n;

describe("Idempotency-Key on POST /api/v1/meeting", () => {
  it("replays the first response for the same key and body, creating one meeting", async () => {
    const key = `"${randomUUID()}"`; // the draft's structured-field string form
    const before = await countMeetings(tenant.orgId);
    const first = await post("/meeting", { title: "Once", attendees: ["a@example.com"] }, key);
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await post("/meeting", { title: "Once", attendees: ["a@example.com"] }, key);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    expect(await countMeetings(tenant.orgId)).toBe(before + 1);
  });

  it("the same key with a different body is 422 and creates nothing", async () => {
    const key = randomUUID();
    expect((await post("/meeting", { title: "First" }, key)).status).toBe(200);
    const before = await countMeetings(tenant.orgId);
    const different = await post("/meeting", { title: "Second" }, key);
    expect(different.status).toBe(422);
    expect(await different.json()).toMatchObject({ error: "This Idempotency-Key was already used with a different request" });
    expect(await countMeetings(tenant.orgId)).toBe(before);
  });

  it("a duplicate while the first is still being processed is 409, and nothing is created by it", async () => {
    const key = randomUUID();
    // Hold the key's lock from outside, as a first request still in its transaction would.
    const holder = new pg.Client({ connectionString: fixture.stack.databaseUrl });
    await holder.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(hashtextextended('idempotency:' || $1 || ':' || $2, 0))", [tenant.orgId, storedKeyOf(tenant, key)]);
      const before = await countMeetings(tenant.orgId);
      const concurrent = await post("/meeting", { title: "Busy" }, key);
      expect(concurrent.status).toBe(409);
      expect(await concurrent.json()).toMatchObject({ error: "A request with this Idempotency-Key is still being processed; retry later" });
      expect(await countMeetings(tenant.orgId)).toBe(before);
    } finally {
      await holder.end();
    }
    expect((await post("/meeting", { title: "Busy" }, key)).status).toBe(200);
  });

  it("many simultaneous requests with one key create one meeting; each answer is that meeting or a 409", async () => {
    const key = randomUUID();
    const before = await countMeetings(tenant.orgId);
    const responses = await Promise.all(Array.from({ length: 12 }, () => post("/meeting", { title: "Race" }, key)));
    const ids = new Set<string>();
    for (const response of responses) {
      expect([200, 409]).toContain(response.status);
      if (response.status === 200) ids.add(((await response.json()) as { id: string }).id);
    }
    expect(ids.size).toBe(1);
    expect(await countMeetings(tenant.orgId)).toBe(before + 1);
  });

  it("keys are scoped to the organization; without a key every request creates; a malformed key is 400", async () => {
    const key = randomUUID();
    const mine = (await (await post("/meeting", { title: "Scoped" }, key)).json()) as { id: string };
    const theirs = (await (await post("/meeting", { title: "Scoped" }, key, other)).json()) as { id: string };
    expect(theirs.id).not.toBe(mine.id);
    const a = (await (await post("/meeting", { title: "No key" })).json()) as { id: string };
    const b = (await (await post("/meeting", { title: "No key" })).json()) as { id: string };
    expect(a.id).not.toBe(b.id);
    // A tab and a Latin-1 letter pass HTTP but not gRPC metadata: refused at the gateway, with the same answer.
    for (const bad of ["", "x".repeat(256), "with space", "with\ttab", "caf\u00e9"]) {
      const response = await post("/meeting", { title: "Bad key" }, bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(await response.json()).toMatchObject({ error: "Idempotency-Key must be 1-255 visible ASCII characters" });
    }
  });

  it("keys are scoped to the credential: another user of the same organization sending the same key gets a meeting of its own", async () => {
    const { userId } = await fixture.stack.cli<{ userId: string }>(
      "users",
      "create",
      "--org",
      tenant.orgId,
      "--email",
      `second-${randomUUID()}@example.com`,
      "--password",
      "second-user-password",
    );
    const { keyId, key: apiKey } = await fixture.stack.cli<{ keyId: string; key: string }>("keys", "create", "--user", userId, "--name", "second");
    const colleague: Tenant = { ...tenant, userId, keyId, apiKey };
    const key = randomUUID();
    const first = (await (await post("/meeting", { title: "Mine" }, key)).json()) as { id: string; url: string };
    const response = await post("/meeting", { title: "Mine" }, key, colleague);
    expect(response.status).toBe(200);
    expect(response.headers.get("idempotent-replayed")).toBeNull();
    const theirs = (await response.json()) as { id: string; url: string };
    expect(theirs.id).not.toBe(first.id);
    expect(theirs.url).not.toBe(first.url);
    // Each credential still gets its own reply back on a retry.
    expect(((await (await post("/meeting", { title: "Mine" }, key)).json()) as { id: string }).id).toBe(first.id);
    expect(((await (await post("/meeting", { title: "Mine" }, key, colleague)).json()) as { id: string }).id).toBe(theirs.id);
  });
});

describe("Idempotency-Key on POST /api/v1/webhook", () => {
  it("replays the registration with the same id and secret; the stored answer is encrypted; a different body is 422", async () => {
    const key = randomUUID();
    const body = { url: "https://example.com/idempotent", events: ["meeting.ended"] };
    const first = await post("/webhook", body, key);
    expect(first.status).toBe(201);
    const created = (await first.json()) as { webhookId: string; secret: string };
    const again = await post("/webhook", body, key);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(created);
    const subscriptions = await fixture.stack.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook.subscriptions WHERE org_id = $1 AND url = $2", [
      tenant.orgId,
      body.url,
    ]);
    expect(subscriptions.rows[0]!.n).toBe(1);
    const stored = await fixture.stack.query<{ response: Buffer }>("SELECT response FROM webhook.idempotency_keys WHERE org_id = $1 AND key = $2", [
      tenant.orgId,
      storedKeyOf(tenant, key),
    ]);
    expect(stored.rows[0]!.response.includes(Buffer.from(created.secret))).toBe(false);
    expect(stored.rows[0]!.response.includes(Buffer.from(created.secret.slice(6)))).toBe(false);
    expect((await post("/webhook", { ...body, events: ["meeting.started"] }, key)).status).toBe(422);
  });

  it("deleting the subscription deletes the stored replies that hold its signing secrets (registration and rotation)", async () => {
    const owner = await createTenant(fixture.stack);
    const storedReplies = async () =>
      (await fixture.stack.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook.idempotency_keys WHERE org_id = $1", [owner.orgId])).rows[0]!.n;
    const created = (await (await post("/webhook", { url: "https://example.com/deleted", events: ["meeting.ended"] }, randomUUID(), owner)).json()) as {
      webhookId: string;
    };
    const rotated = await post(`/webhook/${created.webhookId}/rotate-secret`, {}, randomUUID(), owner);
    expect(rotated.status).toBe(200);
    // Another subscription's reply stays.
    expect((await post("/webhook", { url: "https://example.com/kept", events: ["meeting.ended"] }, randomUUID(), owner)).status).toBe(201);
    expect(await storedReplies()).toBe(3);
    const deleted = await callApi(apiBase(fixture.stack), "DELETE", "/webhook", { key: owner.apiKey, body: { webhookId: created.webhookId } });
    expect(deleted.status).toBe(200);
    expect(await storedReplies()).toBe(1);
  });
});
