import { randomBytes, randomUUID } from "node:crypto";
import { Code, type ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { callerTable, createAuthenticator, createRateLimiter, type Caller } from "@svc/platform";
import { WebhookService } from "@svc/proto/svc/webhook/v1/webhook_pb";
import type { DeliveryView, SubscriptionRecord, DeliveryLog, SubscriptionStore } from "../webhook-stores.ts";
import { createSecretBox } from "../signing/secret-box.ts";
import { DISABLED_BY_ORGANIZATION } from "./subscription-handlers.ts";
import { webhookService } from "./webhook-service.ts";

// The handler rules of WebhookService over an in-memory transport and in-memory stores: value
// and URL rules (the SSRF refusal included), the per-organization cap, admin-only changes,
// organization isolation, sealed idempotent replays and test-event limits. The Postgres stores
// and the delivery itself are covered by the integration tests under test/webhook/.

/** A public address: accepted by the SSRF check without a DNS look-up. */
const PUBLIC_TARGET = "https://93.184.215.14/hooks";
const MAX_PER_ORG = 2;

function inMemorySubscriptionStore(): SubscriptionStore & { all: SubscriptionRecord[]; replays: Map<string, Uint8Array> } {
  const all: SubscriptionRecord[] = [];
  const replays = new Map<string, Uint8Array>();
  const find = async (orgId: string, id: string) => all.find((record) => record.id === id && record.orgId === orgId);
  return {
    all,
    replays,
    async issuingSecret(request, codec, work) {
      const stored = request && replays.get(`${request.orgId}/${request.key}/${request.fingerprint}`);
      if (stored) return { value: codec.decode(stored), replayed: true };
      const value = await work({
        async insert(subscription, maxPerOrg) {
          if (all.filter((record) => record.orgId === subscription.orgId).length >= maxPerOrg) return "limit-reached";
          const { secretSealed: _secret, ...fields } = subscription;
          const record = { ...fields, createdAt: new Date(), disabledAt: null, disabledReason: null, previousSecretExpiresAt: null };
          all.push(record);
          return record;
        },
        async rotateSecret({ orgId, id, graceMs }) {
          const record = await find(orgId, id);
          if (record) record.previousSecretExpiresAt = new Date(Date.now() + graceMs);
          return record;
        },
      });
      if (request) replays.set(`${request.orgId}/${request.key}/${request.fingerprint}`, codec.encode(value));
      return { value, replayed: false };
    },
    list: async (orgId) => all.filter((record) => record.orgId === orgId),
    async listPage(orgId, { size, after }) {
      const cursorOf = (record: SubscriptionRecord) => ({ createdAtMicros: String(record.createdAt.getTime() * 1000), id: record.id });
      const key = (cursor: { createdAtMicros: string; id: string }) => `${cursor.createdAtMicros.padStart(20, "0")}/${cursor.id}`;
      const rest = all
        .filter((record) => record.orgId === orgId && (!after || key(cursorOf(record)) > key(after)))
        .sort((a, b) => key(cursorOf(a)).localeCompare(key(cursorOf(b))));
      const shown = rest.slice(0, size);
      return { subscriptions: shown, ...(rest.length > size ? { next: cursorOf(shown.at(-1)!) } : {}) };
    },
    find,
    async delete(orgId, id) {
      const record = await find(orgId, id);
      if (record) all.splice(all.indexOf(record), 1);
      return record !== undefined;
    },
    async enable(orgId, id) {
      const record = await find(orgId, id);
      if (record) Object.assign(record, { disabledAt: null, disabledReason: null });
      return record;
    },
    async update(orgId, id, { disabled, ...changes }) {
      const record = await find(orgId, id);
      if (!record) return undefined;
      Object.assign(record, changes);
      if (disabled) Object.assign(record, { disabledAt: new Date(), disabledReason: disabled.reason });
      else if (disabled === false) Object.assign(record, { disabledAt: null, disabledReason: null });
      return record;
    },
  };
}

function inMemoryDeliveryLog(): DeliveryLog & { all: DeliveryView[] } {
  const all: DeliveryView[] = [];
  return {
    all,
    list: async ({ subscriptionId, pageSize }) => ({ deliveries: all.filter((delivery) => delivery.subscriptionId === subscriptionId).slice(0, pageSize) }),
    find: async (_orgId, subscriptionId, deliveryId) => all.find((delivery) => delivery.id === deliveryId && delivery.subscriptionId === subscriptionId),
    scheduleRedelivery: async () => true,
    recoverFailed: async () => 0,
    async storeSingle(event, subscriptionId, deliveryId) {
      all.push({
        id: deliveryId,
        subscriptionId,
        eventId: event.id,
        eventType: event.type,
        status: "pending",
        createdAt: new Date(),
        nextAttemptAt: new Date(),
        attempts: [],
      });
    },
  };
}

const callers: Record<string, Caller> = {
  "admin-a": { userId: "admin-a", orgId: "org-a", kind: "api_key", role: "admin", scopes: [], clientId: "" },
  "member-a": { userId: "member-a", orgId: "org-a", kind: "api_key", role: "member", scopes: [], clientId: "" },
  "admin-b": { userId: "admin-b", orgId: "org-b", kind: "api_key", role: "admin", scopes: [], clientId: "" },
  "oauth-read": { userId: "admin-a", orgId: "org-a", kind: "oauth", role: "admin", scopes: ["webhook.read"], clientId: "client-1" },
};
const resolveCaller = callerTable(callers);
const as = (token: string, extra: Record<string, string> = {}) => ({ headers: { authorization: `Bearer ${token}`, ...extra } });

function setUp() {
  const subscriptions = inMemorySubscriptionStore();
  const deliveries = inMemoryDeliveryLog();
  let wakes = 0;
  const transport = createRouterTransport((router) =>
    router.service(
      WebhookService,
      webhookService({
        subscriptions,
        deliveries,
        authenticate: createAuthenticator(resolveCaller),
        secretBox: createSecretBox(randomBytes(32)),
        targetPolicy: { allowPrivateTargets: false, allowInsecure: false },
        maxSubscriptionsPerOrg: MAX_PER_ORG,
        rotationGraceMs: 60_000,
        pendingCaps: { perEndpoint: 10, perOrganization: 10 },
        testEventLimiter: createRateLimiter({ name: "test-events", points: 1, durationSeconds: 60, keyPrefix: "" }),
        wakeDispatcher: () => wakes++,
      }),
    ),
  );
  const webhooks = createClient(WebhookService, transport);
  const register = (token = "admin-a", url = PUBLIC_TARGET) => webhooks.createSubscription({ url, events: ["meeting.ended"] }, as(token));
  return { webhooks, subscriptions, deliveries, register, wakes: () => wakes };
}

describe("CreateSubscription", () => {
  it("registers a subscription in the caller's organization and answers its signing secret once", async () => {
    const { webhooks, subscriptions } = setUp();
    const created = await webhooks.createSubscription({ url: PUBLIC_TARGET, events: ["meeting.ended", "meeting.ended"], description: " Ops " }, as("admin-a"));
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.subscription).toMatchObject({ url: PUBLIC_TARGET, events: ["meeting.ended"], description: "Ops" });
    expect(subscriptions.all).toMatchObject([{ orgId: "org-a", id: created.subscription!.webhookId }]);
  });

  it.each([
    ["http://93.184.215.14/hooks", "url must use https"],
    ["https://user:pw@93.184.215.14/hooks", "url must not contain credentials"],
    ["https://169.254.169.254/latest/meta-data", "url points to a cloud metadata address"],
    ["https://10.0.0.7/hooks", "url points to a private address"],
    ["https://localhost/hooks", "url host localhost resolves to a non-public address"],
  ])("refuses %s (%s) and stores nothing", async (url, problem) => {
    const { webhooks, subscriptions } = setUp();
    await expect(webhooks.createSubscription({ url, events: ["meeting.ended"] }, as("admin-a"))).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringContaining(problem),
    });
    expect(subscriptions.all).toEqual([]);
  });

  it("names an unknown event type with the URL problems in one answer", async () => {
    const { webhooks } = setUp();
    const refused = webhooks.createSubscription({ url: "ftp://example.com", events: ["meeting.exploded"] }, as("admin-a"));
    await expect(refused).rejects.toMatchObject({ code: Code.InvalidArgument, rawMessage: expect.stringMatching(/absolute http\(s\) URL.*meeting\.exploded/) });
  });

  it("refuses a registration past the organization's limit, counting each organization apart", async () => {
    const { register } = setUp();
    for (let i = 0; i < MAX_PER_ORG; i++) await register();
    await expect(register()).rejects.toMatchObject({ code: Code.FailedPrecondition, rawMessage: expect.stringContaining(`at most ${MAX_PER_ORG}`) });
    await expect(register("admin-b")).resolves.toBeDefined();
  });

  it("is for admins: a member, and an OAuth token without webhook.create, are refused", async () => {
    const { register, subscriptions } = setUp();
    await expect(register("member-a")).rejects.toMatchObject({ code: Code.PermissionDenied, rawMessage: "Only an admin of the organization can do this" });
    await expect(register("oauth-read")).rejects.toMatchObject({ code: Code.PermissionDenied, rawMessage: "Insufficient scope: webhook.create" });
    expect(subscriptions.all).toEqual([]);
  });

  it("replays a repeated Idempotency-Key with the same secret, kept for the replay only sealed", async () => {
    const { webhooks, subscriptions } = setUp();
    const request = { url: PUBLIC_TARGET, events: ["meeting.ended"] };
    const first = await webhooks.createSubscription(request, as("admin-a", { "idempotency-key": "k1" }));
    let replayed: string | null = null;
    const second = await webhooks.createSubscription(request, {
      ...as("admin-a", { "idempotency-key": "k1" }),
      onHeader: (h) => (replayed = h.get("idempotent-replayed")),
    });
    expect(second).toEqual(first);
    expect(replayed).toBe("true");
    expect(subscriptions.all).toHaveLength(1);
    const [stored] = [...subscriptions.replays.values()];
    expect(Buffer.from(stored!).toString("latin1")).not.toContain(first.secret);
    expect(Buffer.from(stored!).toString("latin1")).not.toContain(Buffer.from(first.secret).toString("base64"));
  });
});

describe("organization isolation", () => {
  it("another organization's subscription is NOT_FOUND for every operation and absent from its list", async () => {
    const { webhooks, register, subscriptions } = setUp();
    const { subscription } = await register();
    const webhookId = subscription!.webhookId;
    const other = as("admin-b");
    const refusals = [
      webhooks.deleteSubscription({ webhookId }, other),
      webhooks.enableSubscription({ webhookId }, other),
      webhooks.updateSubscription({ webhookId, description: "theirs" }, other),
      webhooks.rotateSecret({ webhookId }, other),
      webhooks.sendTestEvent({ webhookId }, other),
      webhooks.listDeliveries({ webhookId }, other),
    ];
    for (const refusal of refusals) await expect(refusal).rejects.toMatchObject({ code: Code.NotFound, rawMessage: "Webhook not found" });
    expect((await webhooks.listSubscriptions({}, other)).subscriptions).toEqual([]);
    expect(subscriptions.all[0]).toMatchObject({ description: "", disabledAt: null, previousSecretExpiresAt: null });
  });

  it("a webhook id that is not a UUID is INVALID_ARGUMENT; an unknown one is NOT_FOUND beside the organization's own", async () => {
    const { webhooks, register } = setUp();
    await register();
    await expect(webhooks.deleteSubscription({ webhookId: "42" }, as("admin-a"))).rejects.toMatchObject({ code: Code.InvalidArgument });
    await expect(webhooks.sendTestEvent({ webhookId: randomUUID() }, as("admin-a"))).rejects.toMatchObject({ code: Code.NotFound });
  });
});

describe("ListSubscriptions", () => {
  it("answers every subscription when no page is asked for, and pages through them with pageSize and pageToken", async () => {
    const { webhooks, register } = setUp();
    const first = await register();
    const second = await register();
    const everything = await webhooks.listSubscriptions({}, as("member-a"));
    expect(everything.subscriptions.map((subscription) => subscription.webhookId).sort()).toEqual(
      [first.subscription!.webhookId, second.subscription!.webhookId].sort(),
    );
    expect(everything.nextPageToken).toBe("");

    const pageOne = await webhooks.listSubscriptions({ pageSize: 1 }, as("member-a"));
    expect(pageOne.subscriptions).toHaveLength(1);
    expect(pageOne.nextPageToken).not.toBe("");
    const pageTwo = await webhooks.listSubscriptions({ pageSize: 1, pageToken: pageOne.nextPageToken }, as("member-a"));
    expect(pageTwo.subscriptions).toHaveLength(1);
    expect(pageTwo.nextPageToken).toBe("");
    expect(new Set([...pageOne.subscriptions, ...pageTwo.subscriptions].map((subscription) => subscription.webhookId)).size).toBe(2);
    expect((await webhooks.listSubscriptions({ pageSize: 5 }, as("admin-b"))).subscriptions).toEqual([]);
  });

  it("names a page size out of range and a page token it never issued in one INVALID_ARGUMENT", async () => {
    const { webhooks } = setUp();
    await expect(webhooks.listSubscriptions({ pageSize: 101, pageToken: "bm90LWEtY3Vyc29y" }, as("admin-a"))).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringMatching(/pageSize must be between 1 and 100.*pageToken is not a token this API returned/),
    });
  });
});

describe("UpdateSubscription", () => {
  it("refuses an update that changes nothing, and checks a new URL as at registration", async () => {
    const { webhooks, register } = setUp();
    const webhookId = (await register()).subscription!.webhookId;
    await expect(webhooks.updateSubscription({ webhookId }, as("admin-a"))).rejects.toMatchObject({ rawMessage: expect.stringContaining("nothing to change") });
    await expect(webhooks.updateSubscription({ webhookId, url: "https://127.0.0.1/" }, as("admin-a"))).rejects.toMatchObject({
      rawMessage: "url points to a loopback address (127.0.0.1)",
    });
  });

  it("disabling records that the organization did it; a test event to a disabled subscription is refused", async () => {
    const { webhooks, register, deliveries } = setUp();
    const webhookId = (await register()).subscription!.webhookId;
    const { subscription } = await webhooks.updateSubscription({ webhookId, disabled: true }, as("admin-a"));
    expect(subscription!.disabledReason).toBe(DISABLED_BY_ORGANIZATION);
    await expect(webhooks.sendTestEvent({ webhookId }, as("admin-a"))).rejects.toMatchObject({ code: Code.FailedPrecondition });
    expect(deliveries.all).toEqual([]);
  });
});

describe("SendTestEvent", () => {
  it("stores one test delivery and wakes the dispatcher; past the allowance it answers RESOURCE_EXHAUSTED with Retry-After", async () => {
    const { webhooks, register, deliveries, wakes } = setUp();
    const webhookId = (await register()).subscription!.webhookId;
    const { delivery } = await webhooks.sendTestEvent({ webhookId }, as("admin-a"));
    expect(delivery).toMatchObject({ webhookId, eventType: "webhook.test" });
    expect(deliveries.all).toHaveLength(1);
    expect(wakes()).toBe(1);
    const refused = await webhooks.sendTestEvent({ webhookId }, as("admin-a")).catch((error: unknown) => error as ConnectError);
    expect(refused).toMatchObject({ code: Code.ResourceExhausted });
    expect(Number((refused as ConnectError).metadata.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(deliveries.all).toHaveLength(1);
  });
});

describe("ListDeliveries", () => {
  it("names every bad query value in one INVALID_ARGUMENT", async () => {
    const { webhooks, register } = setUp();
    const webhookId = (await register()).subscription!.webhookId;
    const refused = webhooks.listDeliveries(
      { webhookId, pageSize: -1, pageToken: "nope", since: "2030-01-02T00:00:00Z", until: "2030-01-01T00:00:00Z" },
      as("admin-a"),
    );
    await expect(refused).rejects.toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: expect.stringMatching(/pageToken is not a token this API returned.*until must be after since/),
    });
  });
});
