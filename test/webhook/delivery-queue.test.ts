import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { createPool, type Pool } from "@svc/platform/db";
import { scheduleRedelivery } from "../../services/webhook/src/db/delivery-log.ts";
import { claimDueDeliveries, recordFailure, recordSuccess, storeEventDeliveries, type ClaimedDelivery } from "../../services/webhook/src/db/deliveries.ts";
import { deleteSubscription } from "../../services/webhook/src/db/subscriptions.ts";
import { createDispatcher, type Dispatcher } from "../../services/webhook/src/delivery/dispatcher.ts";
import { createHttpSender } from "../../services/webhook/src/delivery/http-sender.ts";
import { createSecretBox } from "../../services/webhook/src/signing/secret-box.ts";
import { createServiceDatabase, type ServiceDatabase } from "../support/service-database.ts";
import { storeSubscription } from "../support/stored-subscriptions.ts";
import { waitFor } from "../support/wait.ts";
import { holdStill } from "../support/hold-still.ts";

// The delivery queue against the real Postgres: claims with FOR UPDATE SKIP LOCKED and leases,
// outcomes, the disable policy, cancellation, and dispatchers sharing one queue.
const logger = createLogger("webhook-queue-test", "silent");
const secretBox = createSecretBox(randomBytes(32));
let database: ServiceDatabase;
let pool: Pool;
let replicaPool: Pool;

beforeAll(async () => {
  database = await createServiceDatabase("webhook", logger, { max: 10 });
  pool = database.pool;
  replicaPool = createPool({ databaseUrl: database.url, schema: "webhook", logger, max: 10 });
});
afterAll(async () => {
  await replicaPool?.end();
  await database?.drop();
});
beforeEach(async () => {
  await pool.query("TRUNCATE attempts, deliveries, events, subscriptions");
});

const subscribe = (orgId: string, url?: string, events?: string[]) =>
  storeSubscription(pool, secretBox, orgId, { ...(url ? { url } : {}), ...(events ? { events } : {}) });

const endedEvent = (orgId: string, id: string = randomUUID()) => ({
  id,
  orgId,
  type: "meeting.ended",
  body: JSON.stringify({ type: "meeting.ended", timestamp: new Date().toISOString(), data: { eventId: id } }),
});

const storeEvent = (orgId: string, id?: string) => storeEventDeliveries(pool, [endedEvent(orgId, id)]);

const claim = (from: Pool, limit = 100, options: { leaseMs?: number; perEndpoint?: number; inFlight?: Map<string, number> } = {}) =>
  claimDueDeliveries(from, {
    limit,
    leaseMs: options.leaseMs ?? 30_000,
    leaseToken: randomUUID(),
    perEndpoint: options.perEndpoint ?? 1_000,
    perOrganization: 1_000,
    inFlight: options.inFlight ?? new Map(),
  });

/** A failure decision that never trips the circuit breaker (these tests are about the schedule and disabling). */
const decision = (rest: { retryInMs: number | null; disableAfterMs: number }) => ({
  ...rest,
  timedOut: false,
  circuitBreaker: { consecutiveTimeouts: 1_000, openMs: 60_000 },
});

const attempt = (statusCode?: number) => ({
  attemptedAt: new Date(),
  latencyMs: 5,
  responseExcerpt: "",
  ...(statusCode ? { statusCode, error: `HTTP ${statusCode}` } : {}),
});

const statusOf = async (deliveryId: string) =>
  (await pool.query<{ status: string; attempt_count: number }>("SELECT status, attempt_count FROM deliveries WHERE id = $1", [deliveryId])).rows[0]!;

describe("storing events as deliveries", () => {
  it("creates one delivery per enabled, matching subscription of the event's organization only", async () => {
    const a = await subscribe("org-a");
    const b = await subscribe("org-a");
    await subscribe("org-b");
    const disabled = await subscribe("org-a");
    await pool.query("UPDATE subscriptions SET disabled_at = now(), disabled_reason = 'test' WHERE id = $1", [disabled.id]);
    const deleted = await subscribe("org-a");
    await deleteSubscription(pool, "org-a", deleted.id);

    expect(await storeEvent("org-a")).toBe(2);
    const { rows } = await pool.query<{ subscription_id: string }>("SELECT subscription_id FROM deliveries ORDER BY subscription_id");
    expect(rows.map((row) => row.subscription_id).sort()).toEqual([a.id, b.id].sort());
  });

  it("stores no event nobody subscribed to (its body holds attendees' addresses), and the event once for its deliveries", async () => {
    await subscribe("org-b");
    const unwanted = randomUUID();
    expect(await storeEvent("org-a", unwanted)).toBe(0);
    expect((await pool.query("SELECT 1 FROM events WHERE id = $1", [unwanted])).rowCount).toBe(0);
    const wanted = randomUUID();
    expect(await storeEvent("org-b", wanted)).toBe(1);
    expect((await pool.query("SELECT id FROM events")).rows).toEqual([{ id: wanted }]);
  });

  it("stores a redelivered event once: no duplicate deliveries", async () => {
    await subscribe("org-a");
    const eventId = randomUUID();
    expect(await storeEvent("org-a", eventId)).toBe(1);
    expect(await storeEvent("org-a", eventId)).toBe(0);
    const results = await Promise.all(Array.from({ length: 10 }, () => storeEvent("org-a", eventId)));
    expect(results.every((created) => created === 0)).toBe(true);
    expect((await pool.query("SELECT 1 FROM deliveries")).rowCount).toBe(1);
  });
});

describe("claiming due deliveries", () => {
  it("two replicas claiming at the same moment get disjoint sets that cover every due delivery", async () => {
    await subscribe("org-a");
    // One batch, as the consumer stores them: 200 concurrent statements waited past the pool's
    // connection timeout on a loaded CI machine.
    expect(
      await storeEventDeliveries(
        pool,
        Array.from({ length: 200 }, () => endedEvent("org-a")),
      ),
    ).toBe(200);
    const claims: ClaimedDelivery[][] = await Promise.all([
      ...Array.from({ length: 5 }, () => claim(pool, 30)),
      ...Array.from({ length: 5 }, () => claim(replicaPool, 30)),
    ]);
    const ids = claims.flat().map((delivery) => delivery.id);
    expect(new Set(ids).size).toBe(ids.length);
    const rest = [...(await claim(pool, 200)), ...(await claim(replicaPool, 200))].map((delivery) => delivery.id);
    expect(new Set([...ids, ...rest]).size).toBe(200);
    expect(ids.length + rest.length).toBe(200);
  });

  it("a leased delivery is not claimable until its lease ends; then another replica takes it and the old lease cannot record", async () => {
    await subscribe("org-a");
    await storeEvent("org-a");
    const [first] = await claim(pool, 10, { leaseMs: 400 });
    expect(first).toBeDefined();
    expect(await claim(replicaPool)).toEqual([]);
    let second: ClaimedDelivery | undefined;
    await waitFor(async () => ([second] = await claim(replicaPool)).length > 0, 5_000, "the delivery was not claimable after its lease");
    expect(second!.id).toBe(first!.id);
    expect(second!.leaseToken).not.toBe(first!.leaseToken);

    await recordSuccess(pool, first!, attempt(200)); // the crashed-and-returned replica's late outcome
    expect((await statusOf(first!.id)).status).toBe("pending");
    await recordSuccess(replicaPool, second!, attempt(200));
    expect(await statusOf(first!.id)).toEqual({ status: "succeeded", attempt_count: 1 });
  });

  it("gives one subscription no more than its remaining per-endpoint budget, and none when it is saturated", async () => {
    const slow = await subscribe("org-a");
    const other = await subscribe("org-b");
    for (let i = 0; i < 10; i++) await storeEvent("org-a");
    for (let i = 0; i < 3; i++) await storeEvent("org-b");
    const batch = await claim(pool, 100, { perEndpoint: 4, inFlight: new Map([[slow.id, 3]]) });
    const count = (id: string) => batch.filter((delivery) => delivery.subscriptionId === id).length;
    expect(count(slow.id)).toBe(1);
    expect(count(other.id)).toBe(3);
    expect(await claim(pool, 100, { perEndpoint: 4, inFlight: new Map([[slow.id, 4]]) })).toEqual([]);
  });
});

describe("outcomes and the disable policy", () => {
  it("a failure re-schedules with the given delay; the last allowed failure fails the delivery", async () => {
    await subscribe("org-a");
    await storeEvent("org-a");
    const [delivery] = await claim(pool);
    await recordFailure(pool, delivery!, attempt(500), decision({ retryInMs: 60_000, disableAfterMs: 1e12 }));
    const { rows } = await pool.query<{ status: string; due_in: number }>(
      "SELECT status, extract(epoch FROM next_attempt_at - now()) AS due_in FROM deliveries WHERE id = $1",
      [delivery!.id],
    );
    expect(rows[0]!.status).toBe("pending");
    expect(Number(rows[0]!.due_in)).toBeGreaterThan(55);
    await pool.query("UPDATE deliveries SET next_attempt_at = now()");
    const [again] = await claim(pool);
    await recordFailure(pool, again!, attempt(500), decision({ retryInMs: null, disableAfterMs: 1e12 }));
    expect(await statusOf(delivery!.id)).toEqual({ status: "failed", attempt_count: 2 });
    const attempts = await pool.query("SELECT status_code, error FROM attempts WHERE delivery_id = $1", [delivery!.id]);
    expect(attempts.rows).toEqual([
      { status_code: 500, error: "HTTP 500" },
      { status_code: 500, error: "HTTP 500" },
    ]);
  });

  it("410 Gone disables the subscription at once and fails its other pending deliveries", async () => {
    const subscription = await subscribe("org-a");
    await storeEvent("org-a");
    await storeEvent("org-a");
    const [delivery] = await claim(pool, 1);
    const { disabledFor: reason } = await recordFailure(pool, delivery!, attempt(410), decision({ retryInMs: 5_000, disableAfterMs: 1e12 }));
    expect(reason).toBe("the endpoint answered 410 Gone");
    const { rows } = await pool.query("SELECT disabled_reason, deleted_at FROM subscriptions WHERE id = $1", [subscription.id]);
    expect(rows[0]).toEqual({ disabled_reason: "the endpoint answered 410 Gone", deleted_at: null });
    const statuses = await pool.query("SELECT status FROM deliveries");
    expect(statuses.rows.map((row) => row.status)).toEqual(["failed", "failed"]);
    expect(await storeEvent("org-a")).toBe(0);
  });

  it("disables after continuous failure for the configured time, and a success in between resets the streak", async () => {
    const subscription = await subscribe("org-a");
    for (let i = 0; i < 3; i++) await storeEvent("org-a");
    const [first, second, third] = await claim(pool);
    await recordFailure(pool, first!, { ...attempt(500), attemptedAt: new Date(Date.now() - 10_000) }, decision({ retryInMs: 1_000, disableAfterMs: 60_000 }));
    await recordSuccess(pool, second!, attempt(200));
    expect((await pool.query("SELECT failing_since FROM subscriptions")).rows[0].failing_since).toBeNull();

    await pool.query("UPDATE subscriptions SET failing_since = now() - interval '2 minutes' WHERE id = $1", [subscription.id]);
    const { disabledFor: reason } = await recordFailure(pool, third!, attempt(503), decision({ retryInMs: 1_000, disableAfterMs: 60_000 }));
    expect(reason).toMatch(/^failing without a successful delivery since /);
    const { rows } = await pool.query("SELECT disabled_at IS NOT NULL AS disabled, deleted_at FROM subscriptions");
    expect(rows[0]).toEqual({ disabled: true, deleted_at: null });
  });
});

describe("cancellation and redelivery", () => {
  it("deleting a subscription cancels its pending deliveries, so nothing is claimed for it", async () => {
    const subscription = await subscribe("org-a");
    for (let i = 0; i < 5; i++) await storeEvent("org-a");
    expect(await deleteSubscription(pool, "org-b", subscription.id)).toBe(false);
    expect(await deleteSubscription(pool, "org-a", subscription.id)).toBe(true);
    expect(await claim(pool)).toEqual([]);
    const { rows } = await pool.query("SELECT DISTINCT status FROM deliveries");
    expect(rows).toEqual([{ status: "cancelled" }]);
    const secret = await pool.query("SELECT secret_sealed FROM subscriptions");
    expect(secret.rows[0].secret_sealed).toBeNull();
  });

  it("redelivery re-opens a finished delivery for one attempt and leaves an in-flight one alone", async () => {
    const subscription = await subscribe("org-a");
    await storeEvent("org-a");
    const [delivery] = await claim(pool);
    expect(await scheduleRedelivery(pool, "org-a", subscription.id, delivery!.id)).toBe(false); // in flight
    await recordSuccess(pool, delivery!, attempt(200));
    expect(await scheduleRedelivery(pool, "org-b", subscription.id, delivery!.id)).toBe(false); // another organization
    expect(await scheduleRedelivery(pool, "org-a", subscription.id, delivery!.id)).toBe(true);
    const [again] = await claim(pool);
    expect(again).toMatchObject({ id: delivery!.id, singleAttempt: true, attemptCount: 1 });
  });
});

describe("dispatchers sharing one queue", () => {
  let receiver: http.Server;
  let url: string;
  const received: { id: string; at: number; verified: boolean }[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  let answerDelayMs = 5;
  let concurrentSameId = 0;
  const inFlightIds = new Set<string>();
  let secret = "";

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const id = String(req.headers["webhook-id"]);
        if (inFlightIds.has(id)) concurrentSameId++;
        inFlightIds.add(id);
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        let verified = false;
        try {
          new Webhook(secret).verify(Buffer.concat(chunks).toString(), req.headers as Record<string, string>);
          verified = true;
        } catch {
          verified = false;
        }
        void holdStill(answerDelayMs, "the endpoint answers late on purpose: a slow receiver holds deliveries in flight").then(() => {
          inFlight--;
          inFlightIds.delete(id);
          received.push({ id, at: Date.now(), verified });
          res.writeHead(204).end();
        });
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const dispatcherOn = (on: Pool, overrides: Partial<Parameters<typeof createDispatcher>[0]> = {}): Dispatcher =>
    createDispatcher({
      pool: on,
      sender: createHttpSender({ timeoutMs: 2_000, allowPrivateTargets: true }),
      secretBox,
      retryPolicy: { scheduleSeconds: [0, 0.1, 0.1], throttledMinDelaySeconds: 0, jitter: 0.2 },
      logger,
      concurrency: 16,
      perEndpointConcurrency: 8,
      perOrganizationConcurrency: 16,
      circuitBreaker: { consecutiveTimeouts: 5, openMs: 60_000 },
      leaseMs: 5_000,
      queueWaitMs: 1_000,
      pollIntervalMs: 100,
      disableAfterMs: 1e12,
      ...overrides,
    });

  it("two dispatchers deliver 300 deliveries, each exactly once, signed, never the same one concurrently", async () => {
    received.length = 0;
    concurrentSameId = 0;
    const subscription = await subscribe("org-a", url);
    secret = subscription.secret;
    await Promise.all(Array.from({ length: 300 }, () => storeEvent("org-a")));
    const replicas = [dispatcherOn(pool), dispatcherOn(replicaPool)];
    replicas.forEach((replica) => replica.start());
    await waitFor(async () => (await pool.query("SELECT 1 FROM deliveries WHERE status = 'succeeded'")).rowCount === 300, 30_000, "not all delivered");
    await Promise.all(replicas.map((replica) => replica.stop()));
    expect(received).toHaveLength(300);
    expect(new Set(received.map((r) => r.id)).size).toBe(300);
    expect(received.every((r) => r.verified)).toBe(true);
    expect(concurrentSameId).toBe(0);
    expect(inFlight).toBe(0);
  });

  describe("with an endpoint that answers slowly", () => {
    beforeEach(() => {
      received.length = 0;
      mostInFlight = 0;
      answerDelayMs = 800;
    });
    afterAll(() => void (answerDelayMs = 5));

    it("claims ahead but sends no more at once than the endpoint's limit; a delivery claimed ahead goes back to the queue after queueWaitMs", async () => {
      const subscription = await subscribe("org-a", url);
      secret = subscription.secret;
      for (let i = 0; i < 6; i++) await storeEvent("org-a");
      const dispatcher = dispatcherOn(pool, { perEndpointConcurrency: 2, queueWaitMs: 150 });
      dispatcher.start();
      await waitFor(() => inFlight === 2, 5_000, "the first two were not sent");
      // Two on the wire, two claimed ahead (leased by this dispatcher), two due.
      const leasesAhead = async () =>
        (
          await pool.query<{ lease_token: string }>("SELECT lease_token FROM deliveries WHERE status = 'pending' AND lease_token IS NOT NULL ORDER BY id")
        ).rows.map((row) => row.lease_token);
      const first = await leasesAhead();
      expect(first).toHaveLength(4);
      await holdStill(400, "past queueWaitMs the two waiting are given back and claimed again: new leases, the two on the wire keep theirs");
      const later = await leasesAhead();
      expect(later.filter((token) => first.includes(token))).toHaveLength(2);
      await waitFor(() => received.length === 6, 10_000, "not all delivered");
      await dispatcher.stop();
      expect(mostInFlight).toBe(2);
      expect(new Set(received.map((r) => r.id)).size).toBe(6);
    });

    it("gives back what it claimed ahead when stopped, so another replica sends it at once rather than when the lease ends", async () => {
      const subscription = await subscribe("org-a", url);
      secret = subscription.secret;
      for (let i = 0; i < 4; i++) await storeEvent("org-a");
      const stopped = dispatcherOn(pool, { perEndpointConcurrency: 2, queueWaitMs: 60_000, leaseMs: 60_000, drainMs: 5_000 });
      stopped.start();
      await waitFor(() => inFlight === 2, 5_000, "the first two were not sent");
      await stopped.stop();
      const stoppedAt = Date.now();
      const replica = dispatcherOn(replicaPool, { perEndpointConcurrency: 2 });
      replica.start();
      await waitFor(() => received.length === 4, 5_000, "the replica did not send what the stopped dispatcher had claimed ahead");
      await replica.stop();
      expect(received.at(-1)!.at - stoppedAt).toBeLessThan(3_000);
      expect(new Set(received.map((r) => r.id)).size).toBe(4);
    });
  });

  it("wakes at once when woken instead of waiting for its poll", async () => {
    received.length = 0;
    const subscription = await subscribe("org-a", url);
    secret = subscription.secret;
    const dispatcher = dispatcherOn(pool, { pollIntervalMs: 60_000 });
    dispatcher.start();
    await holdStill(200, "now asleep for a minute (its first, empty poll is not observable)");
    const stored = Date.now();
    await storeEvent("org-a");
    dispatcher.wake();
    await waitFor(() => received.length === 1, 5_000, "not delivered after wake");
    await dispatcher.stop();
    expect(received[0]!.at - stored).toBeLessThan(1_000);
  });
});

describe("a signing secret that cannot be decrypted", () => {
  it("is logged as a failed attempt on the retry schedule, not retried silently forever", async () => {
    const subscription = await subscribe("org-a", "http://127.0.0.1:9/never");
    await storeEvent("org-a");
    const otherKey = createDispatcher({
      pool,
      sender: createHttpSender({ timeoutMs: 1_000, allowPrivateTargets: true }),
      secretBox: createSecretBox(randomBytes(32)), // not the key the secret was sealed with
      retryPolicy: { scheduleSeconds: [0, 0.1], throttledMinDelaySeconds: 0, jitter: 0 },
      logger,
      concurrency: 4,
      perEndpointConcurrency: 4,
      perOrganizationConcurrency: 4,
      circuitBreaker: { consecutiveTimeouts: 5, openMs: 60_000 },
      leaseMs: 5_000,
      queueWaitMs: 1_000,
      pollIntervalMs: 50,
      disableAfterMs: 1e12,
    });
    otherKey.start();
    await waitFor(async () => (await pool.query("SELECT 1 FROM deliveries WHERE status = 'failed'")).rowCount === 1, 10_000, "delivery did not fail");
    await otherKey.stop();
    const { rows } = await pool.query("SELECT a.status_code, a.error FROM attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.subscription_id = $1", [
      subscription.id,
    ]);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({ status_code: null, error: "the signing secret could not be decrypted (server configuration); nothing was sent" });
  });
});
