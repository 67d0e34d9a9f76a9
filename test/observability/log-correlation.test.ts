import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type ServiceName, type Stack } from "../support/stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

// Without tracing: the request id a caller sends reaches the log lines of every process that
// handles the request, the webhook delivery attempt included.
let stack: Stack;
let receiver: WebhookReceiver;
let tenant: Tenant;
/** The subscription the first test creates. */
let webhookId: string;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack({ env: { LOG_LEVEL: "debug" } }), startWebhookReceiver()]);
  tenant = await createTenant(stack);
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

function api(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  return fetch(`${stack.gatewayUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${tenant.apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The JSON log lines of one process that name `requestId`. */
function linesOf(service: ServiceName, requestId: string): { msg?: string; requestId?: string; traceId?: string }[] {
  return stack
    .logs(service)
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg?: string; requestId?: string; traceId?: string })
    .filter((line) => line.requestId === requestId);
}

describe("log correlation", () => {
  it("the request id of POST /meeting/:id/end is on the log lines of the gateway, the meeting service and the delivery attempt", async () => {
    const created = await api("POST", "/webhook", {}, { url: `${receiver.baseUrl}/correlated`, events: ["meeting.ended"] });
    expect(created.status).toBe(201);
    const { secret, webhookId: id } = (await created.json()) as { secret: string; webhookId: string };
    receiver.useSecret("/correlated", secret);
    webhookId = id;
    const meeting = (await (await api("POST", "/meeting", {}, { title: "Correlated" })).json()) as { id: string };

    const requestId = `corr-${randomBytes(8).toString("hex")}`;
    const ended = await api("POST", `/meeting/${meeting.id}/end`, { "x-request-id": requestId });
    expect(ended.status).toBe(200);
    expect(ended.headers.get("x-request-id")).toBe(requestId);
    await waitFor(() => linesOf("webhook", requestId).some((line) => line.msg === "delivered"), 30_000, "no delivery attempt logged with the request id");

    expect(linesOf("gateway", requestId).length).toBeGreaterThan(0);
    expect(linesOf("meeting", requestId).map((line) => line.msg)).toContain("rpc handled");
    // Tracing is off: no trace ids.
    expect(
      [...linesOf("gateway", requestId), ...linesOf("meeting", requestId), ...linesOf("webhook", requestId)].every((line) => line.traceId === undefined),
    ).toBe(true);
  });

  it("the request id of POST /webhook/:id/test is on the log line of the test event's delivery attempt", async () => {
    const requestId = `test-${randomBytes(8).toString("hex")}`;
    const tested = await api("POST", `/webhook/${webhookId}/test`, { "x-request-id": requestId });
    expect(tested.status).toBe(202);
    await waitFor(() => linesOf("webhook", requestId).some((line) => line.msg === "delivered"), 30_000, "no test delivery logged with the request id");
  });
});
