import type { operations } from "@svc/client";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import type { ReceivedWebhook } from "../support/webhook-receiver.ts";
import { subscribeReceiver, useWebhookReceiver, type ReceiverSubscription } from "../support/webhook-fixtures.ts";
import { holdStill } from "../support/hold-still.ts";

// Issue 15's acceptance, end to end with real receivers verifying with the `standardwebhooks`
// library: secret rotation with a grace window, recovering a window of failed deliveries,
// webhook.disabled, the delivery-log filters, and a per-endpoint rate limit shared through Redis.
const GRACE_SECONDS = 4;
const fixture = useStack({
  env: {
    WEBHOOK_RETRY_SCHEDULE: "0,0.3,0.3",
    WEBHOOK_TIMEOUT_MS: "2000",
    WEBHOOK_THROTTLED_MIN_DELAY_SECONDS: "0.2",
    WEBHOOK_POLL_INTERVAL_MS: "200",
    WEBHOOK_SECRET_ROTATION_GRACE_SECONDS: String(GRACE_SECONDS),
  },
});
const receiver = useWebhookReceiver();

beforeAll(() => {});

/** @svc/client as the tenant's API key. */
const client = (tenant: Tenant) => fixture.client(tenant.apiKey);
const onWebhook = (webhookId: string) => ({ params: { path: { webhookId } } });
const recover = (tenant: Tenant, webhookId: string, window: { since: string; until?: string }) =>
  client(tenant).POST("/webhook/{webhookId}/recover", { ...onWebhook(webhookId), body: window });

const subscribe = (tenant: Tenant, path: string, options: ReceiverSubscription = {}) =>
  subscribeReceiver(fixture.stack, receiver, tenant.apiKey, path, options);

async function endMeeting(tenant: Tenant, title = "Sync") {
  const created = await client(tenant).POST("/meeting", { body: { title } });
  expect(created.response.status).toBe(200);
  expect((await client(tenant).POST("/meeting/{id}/end", { params: { path: { id: created.data!.id } } })).response.status).toBe(200);
}

/** Runs `count` tasks with at most `parallel` at a time. */
async function inParallel(count: number, parallel: number, task: (index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

type DeliveryFilter = NonNullable<operations["listWebhookDeliveries"]["parameters"]["query"]>;

async function deliveries(tenant: Tenant, webhookId: string, filter: DeliveryFilter = {}) {
  const { data, response } = await client(tenant).GET("/webhook/{webhookId}/deliveries", {
    params: { path: { webhookId }, query: { pageSize: 100, ...filter } },
  });
  expect(response.status).toBe(200);
  return data!.deliveries;
}

const verifies = (secret: string, request: ReceivedWebhook) => {
  try {
    new Webhook(secret).verify(request.rawBody, request.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

describe("secret rotation", () => {
  it(
    "during the grace window receivers with the OLD and with the NEW secret both verify the same delivery; after it only the NEW one",
    { timeout: 60_000 },
    async () => {
      const tenant = await createTenant(fixture.stack);
      const { webhookId, secret: oldSecret } = await subscribe(tenant, "/rotating");
      const rotated = await client(tenant).POST("/webhook/{webhookId}/rotate-secret", onWebhook(webhookId));
      expect(rotated.response.status).toBe(200);
      const { secret: newSecret, previousSecretExpiresAt } = rotated.data!;
      receiver.useSecret("/rotating", newSecret);

      /** Sends a test event and returns it as the receiver got it: the `nth` on the path. */
      const sendTestEvent = async (nth: number) => {
        expect((await client(tenant).POST("/webhook/{webhookId}/test", onWebhook(webhookId))).response.status).toBe(202);
        await waitFor(() => receiver.on("/rotating").length >= nth, 10_000, `test event ${nth} did not arrive`);
        return receiver.on("/rotating")[nth - 1]!;
      };

      const during = await sendTestEvent(1);
      expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
      expect(verifies(oldSecret, during)).toBe(true);
      expect(verifies(newSecret, during)).toBe(true);

      // After the window: only the new secret signs, and the old one is wiped from the database.
      await holdStill(Math.max(0, Date.parse(previousSecretExpiresAt!) - Date.now()) + 200, "until the rotation's grace window has passed");
      const after = await sendTestEvent(2);
      expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(1);
      expect(verifies(newSecret, after)).toBe(true);
      expect(verifies(oldSecret, after)).toBe(false);
      await waitFor(
        async () =>
          (await fixture.stack.query("SELECT 1 FROM webhook.subscriptions WHERE id = $1 AND previous_secret_sealed IS NULL", [webhookId])).rowCount === 1,
        GRACE_SECONDS * 1000 + 5_000,
        "the previous secret was not wiped",
      );
    },
  );
});

describe("recovering a window and the delivery-log filters", () => {
  it("redelivers 20 failed deliveries once each with their original webhook-id; the filters find them before and after", { timeout: 120_000 }, async () => {
    const tenant = await createTenant(fixture.stack);
    const { webhookId } = await subscribe(tenant, "/recover");
    let failing = true;
    receiver.answer("/recover", () => (failing ? 503 : 204));
    const since = new Date(Date.now() - 1_000).toISOString();
    await inParallel(20, 5, () => endMeeting(tenant));
    await waitFor(async () => (await deliveries(tenant, webhookId, { status: "failed" })).length === 20, 60_000, "20 deliveries did not fail");

    const failed = await deliveries(tenant, webhookId, { status: "failed", statusClass: "5xx" });
    expect(failed).toHaveLength(20);
    expect(failed.every((delivery) => delivery.attempts.at(-1)?.statusCode === 503)).toBe(true);
    expect(await deliveries(tenant, webhookId, { statusClass: "2xx" })).toEqual([]);
    expect(await deliveries(tenant, webhookId, { since: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);

    // A window before them recovers nothing.
    const before = await recover(tenant, webhookId, { since: new Date(Date.now() - 3600_000).toISOString(), until: since });
    expect(before.data!.recovered).toBe(0);

    failing = false;
    const sentBefore = receiver.on("/recover").length;
    const recovered = await recover(tenant, webhookId, { since });
    expect(recovered.response.status).toBe(202);
    expect(recovered.data!.recovered).toBe(20);
    await waitFor(() => receiver.on("/recover").length >= sentBefore + 20, 30_000, "the recovered deliveries did not arrive");
    await holdStill(1_500, "a negative (nothing is redelivered twice): time for a duplicate to be sent, there is nothing to wait for");
    const redelivered = receiver.on("/recover").slice(sentBefore);
    expect(redelivered).toHaveLength(20);
    expect(redelivered.every((request) => request.payload?.type === "meeting.ended")).toBe(true);
    expect(new Set(redelivered.map((request) => request.id))).toEqual(new Set(failed.map((delivery) => delivery.deliveryId)));

    expect(await deliveries(tenant, webhookId, { status: "failed" })).toEqual([]);
    expect(await deliveries(tenant, webhookId, { status: "succeeded", statusClass: "2xx" })).toHaveLength(20);
  });
});

describe("webhook.disabled", () => {
  it("tells the organization's other endpoints subscribed to it when an endpoint is disabled, and nobody in another organization", async () => {
    const tenant = await createTenant(fixture.stack);
    const stranger = await createTenant(fixture.stack);
    const dying = await subscribe(tenant, "/gone");
    receiver.answer("/gone", () => 410);
    await subscribe(tenant, "/ops", { events: ["webhook.disabled"] });
    await subscribe(stranger, "/stranger-ops", { events: ["webhook.disabled"] });
    await endMeeting(tenant);

    await waitFor(() => receiver.on("/ops").length >= 1, 20_000, "webhook.disabled did not arrive");
    const [notice] = receiver.on("/ops");
    expect(notice!.verificationError).toBeUndefined();
    expect(notice!.payload).toMatchObject({
      type: "webhook.disabled",
      data: {
        webhookId: dying.webhookId,
        orgId: tenant.orgId,
        host: new URL(receiver.baseUrl).host,
        trigger: "gone",
        reason: "the endpoint answered 410 Gone",
      },
    });
    // The id and the host only: never the path or query, which may hold the endpoint's token.
    expect(notice!.payload!.data).not.toHaveProperty("url");
    expect(JSON.stringify(notice!.payload)).not.toContain("/gone");
    expect(receiver.on("/stranger-ops")).toHaveLength(0);
  });
});

describe("per-endpoint rate limit", () => {
  it("paces 100 deliveries at 5/s (at least 19 s) while another endpoint's flow at full speed", { timeout: 180_000 }, async () => {
    const tenant = await createTenant(fixture.stack);
    const limited = await subscribe(tenant, "/slow", { rateLimitPerSecond: 5 });
    await subscribe(tenant, "/fast");
    const started = Date.now();
    await inParallel(100, 10, (index) => endMeeting(tenant, `Meeting ${index}`));
    const producedMs = Date.now() - started;

    await waitFor(() => receiver.on("/fast").length >= 100, 60_000, "the unlimited endpoint did not get 100");
    await waitFor(() => receiver.on("/slow").length >= 100, 60_000, "the limited endpoint did not get 100");
    const times = (path: string) => receiver.on(path).map((request) => request.receivedAt);
    const slow = times("/slow");
    const fast = times("/fast");
    const slowMs = Math.max(...slow) - Math.min(...slow);
    const fastDoneMs = Math.max(...fast) - started;
    console.info(
      `rate limit: 100 meetings ended in ${producedMs} ms; unlimited endpoint got all 100 by ${fastDoneMs} ms; limited (5/s) endpoint took ${slowMs} ms from first to last`,
    );
    expect(slowMs).toBeGreaterThanOrEqual(19_000);
    // At full speed: the unlimited endpoint is done within moments of the last event, long before the limited one.
    expect(fastDoneMs).toBeLessThan(producedMs + 5_000);
    expect(Math.max(...fast)).toBeLessThan(Math.max(...slow) - 10_000);
    // Every delivery arrived once, none was failed by the limit, and none was logged as an attempt it was not.
    expect(new Set(receiver.on("/slow").map((request) => request.id)).size).toBe(100);
    // The last delivery reaches the receiver before the webhook service records its outcome.
    let log: Awaited<ReturnType<typeof deliveries>> = [];
    await waitFor(
      async () => (log = await deliveries(tenant, limited.webhookId, { status: "succeeded" })).length >= 100,
      30_000,
      "the limited endpoint's log did not show 100 successful deliveries",
    );
    expect(log).toHaveLength(100);
    expect(log.every((delivery) => delivery.attempts.length === 1)).toBe(true);
  });
});
