import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { subscribeReceiver } from "../support/webhook-fixtures.ts";
import { holdStill } from "../support/hold-still.ts";

// The embedded default: no KAFKA_BROKERS, so meeting.events travels over the Postgres-backed bus
// and the webhook consumer reads it there, with the same result.
let receiver: WebhookReceiver;
let tenant: Tenant;
const fixture = useStack({ kafka: false });

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  tenant = await createTenant(fixture.stack);
});
afterAll(async () => {
  await receiver?.close();
});

describe("webhooks over the Postgres-backed event bus (no Kafka)", () => {
  it("ending a meeting delivers one signed meeting.ended", async () => {
    expect(fixture.stack.env.KAFKA_BROKERS).toBeUndefined();
    await subscribeReceiver(fixture.stack, receiver, tenant.apiKey, "/embedded");
    const client = fixture.client(tenant.apiKey);
    const meeting = (await client.POST("/meeting", { body: { title: "No Kafka here" } })).data!;
    expect((await client.POST("/meeting/{id}/end", { params: { path: { id: meeting.id } } })).response.status).toBe(200);

    await waitFor(() => receiver.on("/embedded").length >= 1, 20_000, "meeting.ended did not arrive");
    await holdStill(1_500, "a negative (no duplicate arrives): time for one to be sent, there is nothing to wait for");
    const requests = receiver.on("/embedded");
    expect(requests).toHaveLength(1);
    expect(requests[0]!.verificationError).toBeUndefined();
    expect(requests[0]!.payload).toMatchObject({ type: "meeting.ended", data: { meetingId: meeting.id, orgId: tenant.orgId, title: "No Kafka here" } });
  });
});
