import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKafka, stopKafka } from "../support/infra.ts";
import { consumeMeetingEvents } from "../support/meeting-events.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { apiBase, callApi } from "../support/rest-client.ts";

// This file stops the SHARED Kafka broker for a while: other test files on this machine see the
// outage too. The broker is always started again in `finally` and in afterAll.

let tenant: Tenant;
// A short backoff cap, so the relay notices the broker is back within seconds.
const fixture = useStack({ env: { OUTBOX_MAX_BACKOFF_MS: "2000" } });
beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
});
afterAll(async () => {
  await startKafka();
});

const call = (path: string, body?: unknown) => callApi(apiBase(fixture.stack), "POST", path, { key: tenant.apiKey, body });

const unsent = async () => (await fixture.stack.query<{ n: number }>("SELECT count(*)::int AS n FROM meeting.outbox WHERE sent_at IS NULL")).rows[0]!.n;

describe("the outbox relay survives a Kafka outage", () => {
  it("meetings ended while the broker is down are all published, each once, when it is back", { timeout: 240_000 }, async () => {
    const ids: string[] = [];
    for (const title of ["One", "Two", "Three"]) {
      const response = await call("/meeting", { title });
      ids.push((await response.json()).id);
    }

    await stopKafka();
    try {
      for (const id of ids) {
        const response = await call(`/meeting/${id}/end`);
        expect(response.status).toBe(200);
        expect((await response.json()).status).toBe("ended");
      }
      // The events wait in the outbox while the relay retries: keep the broker down until the
      // producer's own retries (about 20 s) are spent and the relay reports the failure itself.
      await waitFor(() => fixture.stack.logs("meeting").includes("outbox relay cannot publish; retrying"), 90_000, "the relay never reported the outage");
      expect(await unsent()).toBe(3);
    } finally {
      await startKafka();
    }

    await waitFor(async () => (await unsent()) === 0, 120_000, "the relay did not publish after the broker came back");
    const consumer = await consumeMeetingEvents(fixture.stack.env.KAFKA_TOPIC_PREFIX!);
    try {
      await waitFor(() => consumer.received.length >= 3, 60_000, "the events did not arrive");
      // The outbox is drained: any duplicate the outage caused is on the topic now.
      await consumer.readAll();
    } finally {
      await consumer.stop();
    }
    expect(consumer.received.map((received) => received.event.meeting!.id).sort()).toEqual([...ids].sort());
    expect(new Set(consumer.received.map((received) => received.event.eventId)).size).toBe(3);
  });
});
