import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger, parseConfig } from "@svc/platform";
import { type Pool } from "@svc/platform/db";
import { configSchema } from "../../services/webhook/src/config.ts";
import { storeEventDeliveries, storeSingleDelivery } from "../../services/webhook/src/db/deliveries.ts";
import { createDispatcher, type Dispatcher, type DispatcherOptions } from "../../services/webhook/src/delivery/dispatcher.ts";
import { createHttpSender } from "../../services/webhook/src/delivery/http-sender.ts";
import { createSecretBox } from "../../services/webhook/src/signing/secret-box.ts";
import { createServiceDatabase, type ServiceDatabase } from "../support/service-database.ts";
import { storeSubscription } from "../support/stored-subscriptions.ts";
import { waitFor } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { dispatcherSettings } from "../../services/webhook/src/delivery/dispatcher-settings.ts";
import { holdStill } from "../support/hold-still.ts";

// Tenant fairness of the dispatcher against the real Postgres and real HTTP endpoints: one
// organization's slow (tarpit) endpoints must not hold up another organization's deliveries.
const logger = createLogger("webhook-fairness-test", "silent");
const secretBox = createSecretBox(randomBytes(32));
let database: ServiceDatabase;
let pool: Pool;
let receiver: WebhookReceiver;
let tarpit: Tarpit;
const dispatchers: Dispatcher[] = [];

/** The production settings, as the webhook service parses them with nothing configured. */
const productionConfig = parseConfig(configSchema, {
  DATABASE_URL: "postgres://unused@127.0.0.1/unused",
  WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  WEBHOOK_ALLOW_INSECURE: "true",
});

/** An endpoint that accepts connections and never answers; counts requests, now and at most at once. */
interface Tarpit {
  url: string;
  requests: number;
  open: number;
  mostOpenAtOnce: number;
  close(): Promise<void>;
}

async function startTarpit(): Promise<Tarpit> {
  const hanging = new Set<http.ServerResponse>();
  const state = { requests: 0, open: 0, mostOpenAtOnce: 0 };
  const server = http.createServer((req, res) => {
    state.requests += 1;
    state.open += 1;
    state.mostOpenAtOnce = Math.max(state.mostOpenAtOnce, state.open);
    hanging.add(res);
    req.resume();
    res.once("close", () => {
      state.open -= 1;
      hanging.delete(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

beforeAll(async () => {
  database = await createServiceDatabase("webhook", logger, { max: 10 });
  pool = database.pool;
  [receiver, tarpit] = await Promise.all([startWebhookReceiver(), startTarpit()]);
});
afterAll(async () => {
  await Promise.all(dispatchers.map((dispatcher) => dispatcher.stop()));
  await tarpit?.close();
  await receiver?.close();
  await database?.drop();
});
beforeEach(async () => {
  await Promise.all(dispatchers.splice(0).map((dispatcher) => dispatcher.stop()));
  await pool.query("TRUNCATE attempts, deliveries, events, subscriptions");
  Object.assign(tarpit, { requests: 0, mostOpenAtOnce: 0 });
});

const subscribe = (orgId: string, url: string) => storeSubscription(pool, secretBox, orgId, { url });

/** A `webhook.test` event for one subscription, stored the way POST /webhook/:id/test stores it. */
const queueTestEvent = (orgId: string, subscriptionId: string) =>
  storeSingleDelivery(
    pool,
    {
      id: randomUUID(),
      orgId,
      type: "webhook.test",
      body: JSON.stringify({ type: "webhook.test", timestamp: new Date().toISOString(), data: { webhookId: subscriptionId, orgId } }),
    },
    subscriptionId,
    randomUUID(),
  );

const meetingEnded = (orgId: string) => {
  const id = randomUUID();
  return {
    id,
    orgId,
    type: "meeting.ended",
    body: JSON.stringify({ type: "meeting.ended", timestamp: new Date().toISOString(), data: { meetingId: id, orgId } }),
  };
};

/** A dispatcher with the service's own settings (config defaults), and a request timeout of `timeoutMs`. */
function startDispatcher(timeoutMs: number, overrides: Partial<DispatcherOptions> = {}): Dispatcher {
  const config = productionConfig;
  const dispatcher = createDispatcher({
    pool,
    sender: createHttpSender({ timeoutMs, allowPrivateTargets: true }),
    secretBox,
    logger,
    ...dispatcherSettings(config, timeoutMs),
    drainMs: 100,
    ...overrides,
  } as DispatcherOptions);
  dispatchers.push(dispatcher);
  dispatcher.start();
  return dispatcher;
}

describe("fair delivery across organizations", () => {
  it("delivers organization B's meeting.ended within 5 s while organization A has ten tarpit endpoints and 1,000 queued test events", async () => {
    const tarpits = await Promise.all(Array.from({ length: 10 }, (_, i) => subscribe("org-a", `${tarpit.url}/a/${i}`)));
    for (let i = 0; i < 1_000; i++) await queueTestEvent("org-a", tarpits[i % tarpits.length]!.id);
    const b = await subscribe("org-b", `${receiver.baseUrl}/b`);
    receiver.useSecret("/b", b.secret);

    // The production request timeout (15 s): A's attempts hang for all of it.
    const dispatcher = startDispatcher(15_000);
    await waitFor(() => tarpit.open >= 10, 5_000, "organization A's deliveries did not start");
    await holdStill(500, "a negative: let A take every slot it can (it must not get more than its share)");

    const storedAt = Date.now();
    await storeEventDeliveries(pool, [meetingEnded("org-b")]);
    dispatcher.wake();
    await waitFor(() => receiver.on("/b").length === 1, 5_000, "organization B's meeting.ended was not delivered within 5 s");
    const latencyMs = receiver.on("/b")[0]!.receivedAt - storedAt;
    console.info(
      `fairness: organization B's meeting.ended delivered ${latencyMs} ms after it was stored; A had ${tarpit.open} attempts hanging (at most ${tarpit.mostOpenAtOnce} at once)`,
    );
    expect(receiver.on("/b")[0]!.payload?.type).toBe("meeting.ended");
    expect(latencyMs).toBeLessThan(5_000);
    // A never held more than its share of the process's attempts.
    expect(tarpit.mostOpenAtOnce).toBeLessThanOrEqual(productionConfig.WEBHOOK_PER_ORG_CONCURRENCY);
  }, 30_000);

  it("opens an endpoint's circuit after consecutive timeouts: no more attempts to it until the circuit closes", async () => {
    const hung = await subscribe("org-a", `${tarpit.url}/slow`);
    for (let i = 0; i < 30; i++) await storeEventDeliveries(pool, [meetingEnded("org-a")]);
    const threshold = productionConfig.WEBHOOK_CIRCUIT_BREAKER_TIMEOUTS;
    startDispatcher(300, { perEndpointConcurrency: 1 });
    await waitFor(async () => (await pool.query("SELECT 1 FROM attempts")).rowCount! >= threshold, 10_000, "timeouts were not recorded");
    await holdStill(2_000, "a negative: long enough for many more 300 ms attempts, were the endpoint still being tried");
    expect(tarpit.requests).toBe(threshold);
    const { rows } = await pool.query<{ open: boolean }>("SELECT circuit_open_until > now() AS open FROM subscriptions WHERE id = $1", [hung.id]);
    expect(rows[0]?.open).toBe(true);
    // Its deliveries wait (pending), they are not failed by the breaker.
    const { rows: pending } = await pool.query<{ count: number }>("SELECT count(*)::int AS count FROM deliveries WHERE status = 'pending'");
    expect(pending[0]!.count).toBe(30);
  }, 20_000);

  it("makes a test event a single attempt: a failed one is not retried", async () => {
    const probe = await subscribe("org-a", `${receiver.baseUrl}/failing-probe`);
    receiver.useSecret("/failing-probe", probe.secret);
    receiver.answer("/failing-probe", () => 500);
    await queueTestEvent("org-a", probe.id);
    startDispatcher(2_000, { retryPolicy: { scheduleSeconds: [0, 0.1, 0.1], throttledMinDelaySeconds: 0, jitter: 0 } });
    await waitFor(async () => (await pool.query("SELECT 1 FROM deliveries WHERE status <> 'pending'")).rowCount === 1, 5_000, "test delivery not settled");
    await holdStill(500, "a negative (no retry follows): longer than the 0.1 s retry schedule, there is nothing to wait for");
    const { rows } = await pool.query<{ status: string; attempt_count: number }>("SELECT status, attempt_count FROM deliveries");
    expect(rows).toEqual([{ status: "failed", attempt_count: 1 }]);
    expect(receiver.on("/failing-probe")).toHaveLength(1);
  });
});

describe("caps on pending deliveries", () => {
  it("stores a delivery beyond an endpoint's pending cap as failed, with the reason in its log, and never sends it", async () => {
    const capped = await subscribe("org-a", `${tarpit.url}/capped`);
    const cap = { perEndpoint: 3, perOrganization: 1_000 };
    for (let i = 0; i < 5; i++) await storeEventDeliveries(pool, [meetingEnded("org-a")], cap);
    const { rows } = await pool.query<{ status: string; count: number }>(
      "SELECT status, count(*)::int AS count FROM deliveries WHERE subscription_id = $1 GROUP BY status ORDER BY status",
      [capped.id],
    );
    expect(rows).toEqual([
      { status: "failed", count: 2 },
      { status: "pending", count: 3 },
    ]);
    const { rows: notes } = await pool.query<{ error: string }>("SELECT error FROM attempts");
    expect(notes).toHaveLength(2);
    expect(notes[0]!.error).toMatch(/not sent: .*pending/);
  });

  it("applies the organization's pending cap over all its endpoints", async () => {
    await subscribe("org-a", `${tarpit.url}/one`);
    await subscribe("org-a", `${tarpit.url}/two`);
    const cap = { perEndpoint: 1_000, perOrganization: 4 };
    for (let i = 0; i < 3; i++) await storeEventDeliveries(pool, [meetingEnded("org-a")], cap);
    const { rows } = await pool.query<{ status: string; count: number }>(
      "SELECT status, count(*)::int AS count FROM deliveries GROUP BY status ORDER BY status",
    );
    expect(rows).toEqual([
      { status: "failed", count: 2 },
      { status: "pending", count: 4 },
    ]);
  });
});
