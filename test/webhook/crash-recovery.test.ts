import { beforeAll, describe, expect, it } from "vitest";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { useStack } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";
import { subscribeReceiver, useWebhookReceiver } from "../support/webhook-fixtures.ts";

// kill -9 of the webhook service in the middle of 200 deliveries: claims it held expire (lease =
// timeout + 10 s), events it had not stored are consumed again from the last committed offset,
// and every event still reaches the receiver at least once.
const EVENTS = 200;
const fixture = useStack({
  env: {
    WEBHOOK_TIMEOUT_MS: "2000",
    WEBHOOK_RETRY_SCHEDULE: "0,0.5,1,1,1,1",
    WEBHOOK_PER_ENDPOINT_CONCURRENCY: "200",
    // 400 REST calls in a few seconds: not what this test is about.
    RATE_LIMIT_PER_SECOND: "100000",
  },
});
const receiver = useWebhookReceiver();
let tenant: Tenant;

beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
});

async function inParallel<T>(count: number, width: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let index = next++; index < count; index = next++) results[index] = await task(index);
    }),
  );
  return results;
}

describe("crash recovery of the webhook service", () => {
  it(`kill -9 while ${EVENTS} deliveries are in flight loses none: every event arrives at least once`, { timeout: 240_000 }, async () => {
    const { stack } = fixture;
    const client = fixture.client(tenant.apiKey);
    await subscribeReceiver(stack, receiver, tenant.apiKey, "/crash");
    // Answer nothing until the crash, so every delivery sent is still in flight when the process dies.
    receiver.answer("/crash", () => "hang");

    const meetingIds = await inParallel(EVENTS, 16, async () => {
      const { data, response } = await client.POST("/meeting", { body: { title: "Crash test" } });
      expect(response.status).toBe(200);
      return data!.id;
    });
    await inParallel(EVENTS, 16, async (index) => {
      const { response } = await client.POST("/meeting/{id}/end", { params: { path: { id: meetingIds[index]! } } });
      expect(response.status).toBe(200);
    });

    await waitFor(() => receiver.on("/crash").length >= 50, 60_000, "deliveries did not start");
    await stack.kill("webhook", "SIGKILL");
    const distinctAtCrash = new Set(receiver.on("/crash").map((request) => request.id)).size;
    const { rows } = await stack.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook.deliveries WHERE status = 'succeeded'");
    // The crash really interrupted the work: nothing had been answered, so nothing was complete.
    expect(rows[0]!.n).toBe(0);
    expect(distinctAtCrash).toBeLessThanOrEqual(EVENTS);

    receiver.answer("/crash", () => 204);
    await stack.start("webhook");

    const distinctMeetings = () => new Set(receiver.on("/crash").map((request) => (request.payload?.data as { meetingId?: string } | undefined)?.meetingId));
    await waitFor(() => distinctMeetings().size >= EVENTS, 120_000, `not every event arrived after the restart (${distinctMeetings().size}/${EVENTS})`);
    await waitFor(
      async () => (await stack.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook.deliveries WHERE status = 'succeeded'")).rows[0]!.n === EVENTS,
      30_000,
      "not every delivery was recorded as succeeded",
    );

    const requests = receiver.on("/crash");
    expect(requests.every((request) => request.verificationError === undefined)).toBe(true);
    expect([...distinctMeetings()].sort()).toEqual([...meetingIds].sort());
    // One delivery per event: redelivered events and re-sent attempts reuse their webhook-id.
    expect(new Set(requests.map((request) => request.id)).size).toBe(EVENTS);
    const { rows: deliveries } = await stack.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook.deliveries");
    expect(deliveries[0]!.n).toBe(EVENTS);
  });
});
