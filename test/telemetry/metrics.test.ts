import { beforeAll, describe, expect, it } from "vitest";
import { signInApi } from "../dashboard/support/dashboard-session.ts";
import { serviceNames, type ServiceName } from "../support/stack.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";
import { useWebhookReceiver } from "../support/webhook-fixtures.ts";
import { parsePrometheusText, total, type Sample } from "./prometheus-text.ts";

// Every process of a real stack serves /metrics on its own METRICS_PORT; each scrape is parsed by
// the reference Prometheus text-format parser, and the counters must move as requests, deliveries
// and refused sign-ins happen. No label may carry an id.
let tenant: Tenant;
/** Every id this test created; none may appear in any label. */
const idsSeen = new Set<string>();
const fixture = useStack({
  metrics: true,
  env: {
    // A failed attempt is retried only after a minute: it stays pending while the test looks.
    WEBHOOK_RETRY_SCHEDULE: "0,60",
    WEBHOOK_TIMEOUT_MS: "1000",
    WEBHOOK_POLL_INTERVAL_MS: "200",
    // The second wrong password starts the backoff, so the third is throttled.
    SIGNIN_MAX_FAILURES_PER_ACCOUNT: "1",
    SIGNIN_BACKOFF_BASE_SECONDS: "60",
  },
});
const receiver = useWebhookReceiver();

beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
  for (const id of [tenant.orgId, tenant.userId]) if (id) idsSeen.add(id);
});

async function scrape(service: ServiceName): Promise<Sample[]> {
  const response = await fetch(fixture.stack.metricsUrls![service]);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await response.text());
}

/** @svc/client as the tenant's API key. */
const client = () => fixture.client(tenant.apiKey);
const inPath = (id: string) => ({ params: { path: { id } } });

async function createMeeting(title: string): Promise<string> {
  const { data, response } = await client().POST("/meeting", { body: { title } });
  expect(response.status).toBe(200);
  const { id } = data!;
  idsSeen.add(id);
  return id;
}

describe("metrics", () => {
  it("every process serves /metrics in the Prometheus text format, with the Node runtime metrics, on its own port only", async () => {
    for (const service of serviceNames) {
      const samples = await scrape(service);
      expect(total(samples, "process_cpu_user_seconds_total", { service }), service).toBeGreaterThan(0);
      expect(total(samples, "nodejs_heap_size_used_bytes", { service }), service).toBeGreaterThan(0);
      expect(
        samples.some((sample) => sample.name === "nodejs_eventloop_lag_seconds"),
        service,
      ).toBe(true);
    }
    // The public port does not serve them.
    const publicMetrics = await fetch(`${fixture.stack.gatewayUrl}/metrics`);
    expect(publicMetrics.status).toBe(404);
  });

  it("gateway requests are counted per route template and method, and the RPCs behind them per service, method and code", async () => {
    const route = { method: "GET", route: "/api/v1/meeting/:id" };
    const rpc = { rpc_service: "svc.meeting.v1.MeetingService", rpc_method: "GetMeeting" };
    const [gatewayBefore, meetingBefore] = await Promise.all([scrape("gateway"), scrape("meeting")]);
    const id = await createMeeting("Metrics review");
    for (let i = 0; i < 3; i++) expect((await client().GET("/meeting/{id}", inPath(id))).response.status).toBe(200);
    expect((await client().GET("/meeting/{id}", inPath("AAAAAAAAAAAAAAAAAAAAAA"))).response.status).toBe(404);
    const [gatewayAfter, meetingAfter] = await Promise.all([scrape("gateway"), scrape("meeting")]);

    const moved = (before: Sample[], after: Sample[], name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);
    expect(moved(gatewayBefore, gatewayAfter, "http_server_request_duration_seconds_count", { ...route, status_code: "200" })).toBe(3);
    expect(moved(gatewayBefore, gatewayAfter, "http_server_request_duration_seconds_count", { ...route, status_code: "404" })).toBe(1);
    expect(moved(gatewayBefore, gatewayAfter, "http_server_request_duration_seconds_count", { method: "POST", route: "/api/v1/meeting" })).toBe(1);
    expect(moved(meetingBefore, meetingAfter, "rpc_server_duration_seconds_count", { ...rpc, rpc_grpc_status_code: "0" })).toBe(3);
    expect(moved(meetingBefore, meetingAfter, "rpc_server_duration_seconds_count", { ...rpc, rpc_grpc_status_code: "5" })).toBe(1);
    expect(moved(gatewayBefore, gatewayAfter, "http_server_request_duration_seconds_sum", { ...route, status_code: "200" })).toBeGreaterThan(0);
    // A verified API key is answered from the shared credential cache on repeat.
    expect(moved(gatewayBefore, gatewayAfter, "credential_cache_lookups_total", { result: "hit" })).toBeGreaterThan(0);
  });

  it("webhook attempts are counted by outcome and status class; backlog, outbox lag and consumer lag are exported", async () => {
    const before = await scrape("webhook");
    for (const [path, status] of [
      ["/ok", 204],
      ["/broken", 500],
    ] as const) {
      receiver.answer(path, () => status);
      const { data, response } = await client().POST("/webhook", { body: { url: `${receiver.baseUrl}${path}`, events: ["meeting.ended"] } });
      expect(response.status).toBe(201);
      const { webhookId, secret } = data!;
      idsSeen.add(webhookId);
      receiver.useSecret(path, secret);
    }
    const id = await createMeeting("Delivered");
    expect((await client().POST("/meeting/{id}/end", inPath(id))).response.status).toBe(200);
    await waitFor(() => receiver.on("/ok").length === 1 && receiver.on("/broken").length === 1, 30_000, "both endpoints did not receive meeting.ended");

    const attempts = (samples: Sample[], outcome: string, statusClass: string) =>
      total(samples, "webhook_delivery_attempts_total", { outcome, status_class: statusClass });
    let after: Sample[] = [];
    await waitFor(
      async () => {
        after = await scrape("webhook");
        return attempts(after, "failed", "5xx") - attempts(before, "failed", "5xx") === 1;
      },
      10_000,
      "the failed attempt was not counted",
    );
    expect(attempts(after, "succeeded", "2xx") - attempts(before, "succeeded", "2xx")).toBe(1);
    expect(total(after, "webhook_delivery_attempt_duration_seconds_count") - total(before, "webhook_delivery_attempt_duration_seconds_count")).toBe(2);
    // The failed delivery waits a minute for its retry: pending, not due. The succeeded one stops
    // being pending when its outcome is committed, which is batched shortly after the attempt.
    await waitFor(
      async () => {
        after = await scrape("webhook");
        return total(after, "webhook_deliveries_pending") === 1;
      },
      10_000,
      "the succeeded delivery was not settled",
    );
    expect(total(after, "webhook_deliveries_due")).toBe(0);
    expect(total(after, "webhook_oldest_due_delivery_age_seconds")).toBe(0);
    await waitFor(async () => total(await scrape("webhook"), "event_consumer_lag_messages", { topic: "meeting.events" }) === 0, 10_000, "consumer lag");

    const meeting = await scrape("meeting");
    expect(total(meeting, "meeting_outbox_unsent_events")).toBe(0);
    expect(total(meeting, "meeting_outbox_oldest_unsent_age_seconds")).toBe(0);
  });

  it("refused sign-ins are counted", async () => {
    const before = total(await scrape("identity"), "identity_sign_in_throttled_total", { by: "account" });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) statuses.push((await signInApi(fixture.stack, tenant.email, `wrong-${attempt}`)).status);
    const refused = statuses.filter((status) => status === 429).length;
    expect(refused).toBeGreaterThan(0);
    expect(total(await scrape("identity"), "identity_sign_in_throttled_total", { by: "account" }) - before).toBe(refused);
  });

  it("no label of any process carries an id", async () => {
    const idLike = [
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, // UUID
      /^[A-Za-z0-9_-]{22}$/, // meeting id
      /[0-9a-f]{16,}/i, // long hex
      /\d{6,}/, // long digits
    ];
    for (const service of serviceNames) {
      for (const sample of await scrape(service)) {
        for (const [label, value] of Object.entries(sample.labels)) {
          const where = `${service} ${sample.name}{${label}="${value}"}`;
          for (const pattern of idLike) expect(pattern.test(value), where).toBe(false);
          for (const id of idsSeen) expect(value.includes(id), where).toBe(false);
        }
      }
    }
  });
});
