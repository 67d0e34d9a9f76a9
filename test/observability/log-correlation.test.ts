import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { ServiceName } from "../support/stack.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { useWebhookReceiver } from "../support/webhook-fixtures.ts";

// Without tracing: the request id a caller sends reaches the log lines of every process that
// handles the request, the webhook delivery attempt included.
let tenant: Tenant;
/** The subscription the first test creates. */
let webhookId: string;
const fixture = useStack({ env: { LOG_LEVEL: "debug" } });
const receiver = useWebhookReceiver();

beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
});

/** The JSON log lines of one process that name `requestId`. */
function linesOf(service: ServiceName, requestId: string): { msg?: string; requestId?: string; trace_id?: string }[] {
  return fixture.stack
    .logs(service)
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg?: string; requestId?: string; trace_id?: string })
    .filter((line) => line.requestId === requestId);
}

describe("log correlation", () => {
  it("the request id of POST /meeting/:id/end is on the log lines of the gateway, the meeting service and the delivery attempt", async () => {
    const client = fixture.client(tenant.apiKey);
    const created = await client.POST("/webhook", { body: { url: `${receiver.baseUrl}/correlated`, events: ["meeting.ended"] } });
    expect(created.response.status).toBe(201);
    const { secret, webhookId: id } = created.data!;
    receiver.useSecret("/correlated", secret);
    webhookId = id;
    const meeting = (await client.POST("/meeting", { body: { title: "Correlated" } })).data!;

    const requestId = `corr-${randomBytes(8).toString("hex")}`;
    const { response: ended } = await client.POST("/meeting/{id}/end", { params: { path: { id: meeting.id } }, headers: { "x-request-id": requestId } });
    expect(ended.status).toBe(200);
    expect(ended.headers.get("x-request-id")).toBe(requestId);
    await waitFor(() => linesOf("webhook", requestId).some((line) => line.msg === "delivered"), 30_000, "no delivery attempt logged with the request id");

    expect(linesOf("gateway", requestId).length).toBeGreaterThan(0);
    expect(linesOf("meeting", requestId).map((line) => line.msg)).toContain("rpc handled");
    // Tracing is off: no trace ids.
    expect(
      [...linesOf("gateway", requestId), ...linesOf("meeting", requestId), ...linesOf("webhook", requestId)].every((line) => line.trace_id === undefined),
    ).toBe(true);
  });

  it("the request id of POST /webhook/:id/test is on the log line of the test event's delivery attempt", async () => {
    const requestId = `test-${randomBytes(8).toString("hex")}`;
    const { response: tested } = await fixture
      .client(tenant.apiKey)
      .POST("/webhook/{webhookId}/test", { params: { path: { webhookId } }, headers: { "x-request-id": requestId } });
    expect(tested.status).toBe(202);
    await waitFor(() => linesOf("webhook", requestId).some((line) => line.msg === "delivered"), 30_000, "no test delivery logged with the request id");
  });
});
