import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../support/stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { subscribeReceiver } from "../support/webhook-fixtures.ts";
import { holdStill } from "../support/hold-still.ts";

// The embedded default: no KAFKA_BROKERS, so meeting.events travels over the Postgres-backed bus
// and the webhook consumer reads it there, with the same result.
let stack: Stack;
let receiver: WebhookReceiver;
let tenant: Tenant;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack({ kafka: false }), startWebhookReceiver()]);
  tenant = await createTenant(stack);
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

const api = (method: string, path: string, body?: unknown) => callApi(apiBase(stack), method, path, { key: tenant.apiKey, body });

describe("webhooks over the Postgres-backed event bus (no Kafka)", () => {
  it("ending a meeting delivers one signed meeting.ended", async () => {
    expect(stack.env.KAFKA_BROKERS).toBeUndefined();
    await subscribeReceiver(stack, receiver, tenant.apiKey, "/embedded");
    const meeting = (await (await api("POST", "/meeting", { title: "No Kafka here" })).json()) as { id: string };
    expect((await api("POST", `/meeting/${meeting.id}/end`)).status).toBe(200);

    await waitFor(() => receiver.on("/embedded").length >= 1, 20_000, "meeting.ended did not arrive");
    await holdStill(1_500, "a negative (no duplicate arrives): time for one to be sent, there is nothing to wait for");
    const requests = receiver.on("/embedded");
    expect(requests).toHaveLength(1);
    expect(requests[0]!.verificationError).toBeUndefined();
    expect(requests[0]!.payload).toMatchObject({ type: "meeting.ended", data: { meetingId: meeting.id, orgId: tenant.orgId, title: "No Kafka here" } });
  });
});
