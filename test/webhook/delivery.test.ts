import * as grpc from "@grpc/grpc-js";
import type { components } from "@svc/client";
import { SendTestEventRequestSchema, SendTestEventResponseSchema } from "@svc/proto/svc/webhook/v1/webhook_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectDocumentedShape, fetchOpenApiDocument } from "../support/openapi-document.ts";
import { grpcJsClient } from "../support/grpc-js.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { subscribeReceiver } from "../support/webhook-fixtures.ts";
import { holdStill } from "../support/hold-still.ts";

// End to end: meetings ended through the REST API travel meeting outbox → Kafka → webhook
// consumer → dispatcher → a real local receiver that verifies every request with the
// `standardwebhooks` library. The retry schedule and timeout are compressed so the tests are fast.
let receiver: WebhookReceiver;
const fixture = useStack({
  env: {
    WEBHOOK_RETRY_SCHEDULE: "0,0.4,0.4,0.4",
    WEBHOOK_TIMEOUT_MS: "1000",
    WEBHOOK_THROTTLED_MIN_DELAY_SECONDS: "0.2",
    WEBHOOK_POLL_INTERVAL_MS: "200",
  },
});

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

/** @svc/client as the tenant's API key. */
const client = (tenant: Tenant) => fixture.client(tenant.apiKey);
const onWebhook = (webhookId: string) => ({ params: { path: { webhookId } } });
const listWebhooks = async (tenant: Tenant) => (await client(tenant).GET("/webhook")).data!.webhooks;
const sendTest = (tenant: Tenant, webhookId: string) => client(tenant).POST("/webhook/{webhookId}/test", onWebhook(webhookId));
const redeliver = (tenant: Tenant, webhookId: string, deliveryId: string) =>
  client(tenant).POST("/webhook/{webhookId}/deliveries/{deliveryId}/retry", { params: { path: { webhookId, deliveryId } } });
const deleteWebhook = (tenant: Tenant, webhookId: string) => client(tenant).DELETE("/webhook", { body: { webhookId } });

/** Registers `path` on the receiver for `tenant` and tells the receiver the secret to verify with. */
const subscribe = async (tenant: Tenant, path: string) => (await subscribeReceiver(fixture.stack, receiver, tenant.apiKey, path)).webhookId;

async function endMeeting(tenant: Tenant, meeting: { title: string; start?: string; attendees?: string[] } = { title: "Weekly sync" }) {
  const created = await client(tenant).POST("/meeting", { body: meeting });
  expect(created.response.status).toBe(200);
  const ended = await client(tenant).POST("/meeting/{id}/end", { params: { path: { id: created.data!.id } } });
  expect(ended.response.status).toBe(200);
  return ended.data!;
}

async function deliveries(tenant: Tenant, webhookId: string): Promise<components["schemas"]["Delivery"][]> {
  const { data, response } = await client(tenant).GET("/webhook/{webhookId}/deliveries", onWebhook(webhookId));
  expect(response.status).toBe(200);
  return data!.deliveries;
}

/**
 * Proves a negative (no further, duplicate or cancelled delivery arrives): nothing can be waited
 * for, so it gives the dispatcher (polling every 200 ms, retrying after 0.4 s) time to send one.
 */
const settle = (ms = 1_500) => holdStill(ms, "a negative: time for the dispatcher to send a delivery that must not come");

describe("webhook delivery, end to end", () => {
  it("ending a meeting delivers one signed meeting.ended carrying the meeting's data", async () => {
    const tenant = await createTenant(fixture.stack);
    const webhookId = await subscribe(tenant, "/ended");
    const ended = await endMeeting(tenant, { title: "Design review", start: "2030-05-01T09:30:00.000Z", attendees: ["Ada@example.com", "bob@example.com"] });

    await waitFor(() => receiver.on("/ended").length >= 1, 20_000, "meeting.ended did not arrive");
    await settle();
    const requests = receiver.on("/ended");
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.verificationError).toBeUndefined();
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["user-agent"]).toMatch(/^svc-webhooks\//);
    expect(request!.payload).toEqual({
      type: "meeting.ended",
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: {
        meetingId: ended.id,
        orgId: tenant.orgId,
        title: "Design review",
        start: "2030-05-01T09:30:00.000Z",
        endedAt: ended.endedAt,
        attendees: ended.attendees,
        reason: "ended_by_api",
        participants: [],
        // Who of the invited came (issue 30): nobody joined this one.
        attendance: {
          guests: 0,
          invitees: ended.attendees.map((email) => ({ email, role: "attendee", joined: false, firstJoinedAt: null, totalSeconds: 0 })),
        },
      },
    });

    const [delivery] = await deliveries(tenant, webhookId);
    expect(delivery).toMatchObject({ deliveryId: request!.id, status: "succeeded", eventType: "meeting.ended" });
    expect(delivery!.attempts).toEqual([expect.objectContaining({ statusCode: 204, error: null })]);
  });

  it("a receiver answering 500 twice then 204 gets three attempts with the same webhook-id, each freshly signed", async () => {
    const tenant = await createTenant(fixture.stack);
    receiver.answer("/flaky", (attempt) => (attempt <= 2 ? { status: 500, body: "temporarily broken" } : 204));
    const webhookId = await subscribe(tenant, "/flaky");
    await endMeeting(tenant);

    await waitFor(() => receiver.on("/flaky").length >= 3, 20_000, "three attempts did not arrive");
    await settle();
    const requests = receiver.on("/flaky");
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.id)).size).toBe(1);
    expect(requests.every((r) => r.verificationError === undefined)).toBe(true);
    // Retries are spaced by the (compressed) schedule, not sent back to back.
    expect(requests[1]!.receivedAt - requests[0]!.receivedAt).toBeGreaterThanOrEqual(250);

    const [delivery] = await deliveries(tenant, webhookId);
    expect(delivery!.status).toBe("succeeded");
    expect(delivery!.attempts.map((a) => [a.statusCode, a.error, a.responseExcerpt])).toEqual([
      [500, "HTTP 500", "temporarily broken"],
      [500, "HTTP 500", "temporarily broken"],
      [204, null, ""],
    ]);
  });

  it("a receiver that hangs is timed out, logged, and retried", async () => {
    const tenant = await createTenant(fixture.stack);
    receiver.answer("/hang", (attempt) => (attempt === 1 ? "hang" : 204));
    const webhookId = await subscribe(tenant, "/hang");
    await endMeeting(tenant);

    await waitFor(() => receiver.on("/hang").length >= 2, 20_000, "the retry after the timeout did not arrive");
    const requests = receiver.on("/hang");
    expect(requests[1]!.id).toBe(requests[0]!.id);
    expect(requests[1]!.receivedAt - requests[0]!.receivedAt).toBeGreaterThanOrEqual(1_000);
    await waitFor(async () => (await deliveries(tenant, webhookId))[0]?.status === "succeeded", 5_000, "the delivery was not marked succeeded");
    const [delivery] = await deliveries(tenant, webhookId);
    expect(delivery!.attempts[0]).toMatchObject({ statusCode: null, error: "timed out after 1000 ms" });
    expect(delivery!.attempts[0]!.latencyMs).toBeGreaterThanOrEqual(950);
    expect(delivery!.attempts[1]).toMatchObject({ statusCode: 204 });
  });

  it("another organization's meetings never reach a subscription", async () => {
    const [mine, theirs] = await Promise.all([createTenant(fixture.stack), createTenant(fixture.stack)]);
    await subscribe(mine, "/isolated");
    await subscribe(theirs, "/theirs");
    await endMeeting(theirs);
    await waitFor(() => receiver.on("/theirs").length >= 1, 20_000, "the other organization's own delivery did not arrive");
    await settle();
    expect(receiver.on("/isolated")).toEqual([]);
  });

  it("a deleted subscription receives nothing more, while the organization's others still do", async () => {
    const tenant = await createTenant(fixture.stack);
    const deletedId = await subscribe(tenant, "/deleted");
    await subscribe(tenant, "/kept");
    await endMeeting(tenant);
    await waitFor(() => receiver.on("/deleted").length === 1 && receiver.on("/kept").length === 1, 20_000, "first event not delivered");

    const { response } = await deleteWebhook(tenant, deletedId);
    expect(response.status).toBe(200);
    await endMeeting(tenant);
    await waitFor(() => receiver.on("/kept").length === 2, 20_000, "second event not delivered to the kept subscription");
    await settle();
    expect(receiver.on("/deleted")).toHaveLength(1);
  });

  it("deleting a subscription while its delivery waits for a retry cancels it: it is not sent again", async () => {
    const tenant = await createTenant(fixture.stack);
    receiver.answer("/cancelled", () => "hang");
    const webhookId = await subscribe(tenant, "/cancelled");
    await endMeeting(tenant);
    await waitFor(() => receiver.on("/cancelled").length === 1, 20_000, "first attempt did not arrive");

    expect((await deleteWebhook(tenant, webhookId)).response.status).toBe(200);
    await settle(3_000); // past the 1 s timeout and the 0.4 s retry delay
    expect(receiver.on("/cancelled")).toHaveLength(1);
    const { rows } = await fixture.stack.query("SELECT status FROM webhook.deliveries WHERE subscription_id = $1", [webhookId]);
    expect(rows).toEqual([{ status: "cancelled" }]);
  });

  it("410 Gone disables the subscription at once (listed with its reason); re-enabling delivers again", async () => {
    const tenant = await createTenant(fixture.stack);
    let gone = true;
    receiver.answer("/gone", () => (gone ? 410 : 204));
    const webhookId = await subscribe(tenant, "/gone");
    await endMeeting(tenant);
    await waitFor(
      async () => {
        return (await listWebhooks(tenant))[0]?.disabled === true;
      },
      20_000,
      "the subscription was not disabled",
    );
    const webhooks = await listWebhooks(tenant);
    expect(webhooks[0]).toMatchObject({ webhookId, disabled: true, disabledReason: "the endpoint answered 410 Gone", disabledAt: expect.any(String) });
    expect(receiver.on("/gone")).toHaveLength(1);

    await endMeeting(tenant);
    await settle(2_000);
    expect(receiver.on("/gone")).toHaveLength(1);
    expect((await sendTest(tenant, webhookId)).response.status).toBe(409);

    gone = false;
    const enabled = await client(tenant).POST("/webhook/{webhookId}/enable", onWebhook(webhookId));
    expect(enabled.response.status).toBe(200);
    expect(enabled.data).toMatchObject({ webhookId, disabled: false });
    await endMeeting(tenant);
    await waitFor(() => receiver.on("/gone").length === 2, 20_000, "no delivery after re-enabling");
  });

  it("limits test events per webhook: beyond 10 a minute RESOURCE_EXHAUSTED with retry-after, other webhooks unaffected", async () => {
    const tenant = await createTenant(fixture.stack);
    const [limited, other] = [await subscribe(tenant, "/limited"), await subscribe(tenant, "/unlimited")];
    const grpcClient = grpcJsClient(fixture.stack.urls.webhook);
    const sendTestOverGrpc = (webhookId: string) =>
      grpcClient.unary(
        "/svc.webhook.v1.WebhookService/SendTestEvent",
        SendTestEventRequestSchema,
        SendTestEventResponseSchema,
        { webhookId },
        { authorization: `Bearer ${tenant.apiKey}` },
      );
    try {
      for (let i = 0; i < 10; i++) await sendTestOverGrpc(limited);
      const refused = (await sendTestOverGrpc(limited).catch((error: grpc.ServiceError) => error)) as grpc.ServiceError;
      expect(refused.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      // (No ";" or ":" in the message: grpc-js leaves the percent-encoding of the grpc-message header in place.)
      expect(refused.details).toBe(`Too many test events for this webhook. Try again in ${refused.metadata.get("retry-after")[0]} seconds`);
      expect(Number(refused.metadata.get("retry-after")[0])).toBeGreaterThan(0);
      expect((await sendTestOverGrpc(other)).delivery?.webhookId).toBe(other);
    } finally {
      grpcClient.close();
    }
    const { rows } = await fixture.stack.query<{ count: number }>("SELECT count(*)::int AS count FROM webhook.deliveries WHERE subscription_id = $1", [
      limited,
    ]);
    expect(rows[0]!.count).toBe(10);
  });

  it("sends a signed webhook.test event on request, and redelivers a delivery with the same webhook-id", async () => {
    const tenant = await createTenant(fixture.stack);
    const webhookId = await subscribe(tenant, "/probe");
    const { data: scheduled, response } = await sendTest(tenant, webhookId);
    expect(response.status).toBe(202);
    expect(scheduled).toMatchObject({ eventType: "webhook.test", status: "pending" });

    await waitFor(() => receiver.on("/probe").length === 1, 10_000, "test event did not arrive");
    const [first] = receiver.on("/probe");
    expect(first!.verificationError).toBeUndefined();
    expect(first!.id).toBe(scheduled!.deliveryId);
    expect(first!.payload).toMatchObject({ type: "webhook.test", data: { webhookId, orgId: tenant.orgId } });

    await waitFor(async () => (await deliveries(tenant, webhookId))[0]?.status === "succeeded", 5_000, "not marked succeeded");
    const retried = await redeliver(tenant, webhookId, scheduled!.deliveryId);
    expect(retried.response.status).toBe(202);
    await waitFor(() => receiver.on("/probe").length === 2, 10_000, "redelivery did not arrive");
    const [, second] = receiver.on("/probe");
    expect(second!.id).toBe(first!.id);
    expect(second!.rawBody).toBe(first!.rawBody);
    expect(second!.verificationError).toBeUndefined();
    await waitFor(async () => (await deliveries(tenant, webhookId))[0]?.attempts.length === 2, 5_000, "second attempt not logged");
  });
});

describe("the OpenAPI document", () => {
  it("lists every webhook route, and the bodies they answer have the documented fields", async () => {
    const document = await fetchOpenApiDocument(fixture.stack);
    expect(Object.keys(document.paths["/webhook"]).sort()).toEqual(["delete", "get", "post"]);
    for (const path of ["/webhook/{webhookId}/enable", "/webhook/{webhookId}/test", "/webhook/{webhookId}/deliveries/{deliveryId}/retry"]) {
      expect(Object.keys(document.paths[path])).toEqual(["post"]);
    }
    expect(Object.keys(document.paths["/webhook/{webhookId}/deliveries"])).toEqual(["get"]);
    const schemas = document.components.schemas;

    const tenant = await createTenant(fixture.stack);
    receiver.answer("/documented", (attempt) => (attempt === 1 ? 503 : 204));
    const createdBody = (await client(tenant).POST("/webhook", { body: { url: `${receiver.baseUrl}/documented`, events: ["meeting.ended"] } })).data!;
    receiver.useSecret("/documented", createdBody.secret);
    expectDocumentedShape(schemas.CreatedWebhook, createdBody);
    expect(Object.keys(schemas.CreatedWebhook.properties).sort()).toEqual(Object.keys(createdBody).sort());

    const listed = (await client(tenant).GET("/webhook")).data!;
    expectDocumentedShape(schemas.WebhookList, listed);
    expectDocumentedShape(schemas.Webhook, listed.webhooks[0]!);

    const tested = (await sendTest(tenant, createdBody.webhookId)).data!;
    expectDocumentedShape(schemas.Delivery, tested);
    // A test event is one attempt: the 503 fails it; a redelivery then succeeds.
    await waitFor(async () => (await deliveries(tenant, createdBody.webhookId))[0]?.status === "failed", 10_000, "test delivery not failed");
    const redelivered = await redeliver(tenant, createdBody.webhookId, tested.deliveryId);
    expectDocumentedShape(schemas.Delivery, redelivered.data!);
    await waitFor(async () => (await deliveries(tenant, createdBody.webhookId))[0]?.status === "succeeded", 10_000, "test delivery not done");
    const page = (
      await client(tenant).GET("/webhook/{webhookId}/deliveries", { params: { path: { webhookId: createdBody.webhookId }, query: { pageSize: 1 } } })
    ).data!;
    expectDocumentedShape(schemas.DeliveryPage, page);
    expectDocumentedShape(schemas.Delivery, page.deliveries[0]!);
    expect(page.deliveries[0]!.attempts).toHaveLength(2);
    for (const attempt of page.deliveries[0]!.attempts) expectDocumentedShape(schemas.DeliveryAttempt, attempt);

    const deleted = (await deleteWebhook(tenant, createdBody.webhookId)).data!;
    expectDocumentedShape(schemas.DeletedWebhook, deleted);
  });

  it("pages through deliveries newest first without gaps or repeats", async () => {
    const tenant = await createTenant(fixture.stack);
    const webhookId = await subscribe(tenant, "/paged");
    for (let i = 0; i < 5; i++) expect((await sendTest(tenant, webhookId)).response.status).toBe(202);
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const query: { pageSize: number; pageToken?: string } = token ? { pageSize: 2, pageToken: token } : { pageSize: 2 };
      const page = (await client(tenant).GET("/webhook/{webhookId}/deliveries", { params: { path: { webhookId }, query } })).data!;
      expect(page.deliveries.length).toBeLessThanOrEqual(2);
      seen.push(...page.deliveries.map((delivery) => delivery.deliveryId));
      token = page.nextPageToken;
    } while (token);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    const { rows } = await fixture.stack.query<{ id: string }>(
      "SELECT id FROM webhook.deliveries WHERE subscription_id = $1 ORDER BY created_at DESC, id DESC",
      [webhookId],
    );
    expect(seen).toEqual(rows.map((row) => row.id));
  });
});
