// What each public endpoint costs in calls: internal RPCs, database round trips, Redis commands and
// calls to the media server, counted from the spans one warm request leaves in its trace. Every
// process of a stack of its own exports its spans (tracingEnv) to a local OTLP receiver; the
// instrumentations that make them (pg, ioredis, our Connect interceptors, undici) see every call.
import { startOtlpReceiver, tracingEnv, type ReceivedSpan } from "../support/otlp-receiver.ts";
import { startStack, type Stack } from "../support/stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { holdStill } from "../support/hold-still.ts";

export interface CallCount {
  endpoint: string;
  /** Connect/gRPC calls from one of our processes to another. */
  rpcs: number;
  /** Postgres statements sent (each one round trip; BEGIN and COMMIT count), by service. */
  database: Record<string, number>;
  /** Redis commands (a pipeline or MULTI counts each command). */
  redis: number;
  /** HTTP calls to the media server's API. */
  media: number;
  /** The RPCs in order, `caller → Service/Method`. */
  calls: string[];
}

interface Probe {
  endpoint: string;
  /** The gateway route (Express's `http.route`) whose server span roots the trace. */
  route: string;
  method: string;
  request: (stack: Stack, tenant: Tenant, meetingId: string) => Promise<Response>;
}

const api = (stack: Stack, tenant: Tenant, method: string, path: string, body?: unknown) =>
  fetch(`${stack.gatewayUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${tenant.apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const probes: Probe[] = [
  { endpoint: "POST /auth (API key)", route: "/api/v1/auth", method: "POST", request: (stack, tenant) => api(stack, tenant, "POST", "/auth") },
  {
    endpoint: "POST /meeting (2 attendees)",
    route: "/api/v1/meeting",
    method: "POST",
    request: (stack, tenant) => api(stack, tenant, "POST", "/meeting", { title: "Counted", attendees: ["a@example.com", "b@example.com"] }),
  },
  { endpoint: "GET /meeting/{id}", route: "/api/v1/meeting/:id", method: "GET", request: (stack, tenant, id) => api(stack, tenant, "GET", `/meeting/${id}`) },
  { endpoint: "GET /webhook", route: "/api/v1/webhook", method: "GET", request: (stack, tenant) => api(stack, tenant, "GET", "/webhook") },
  {
    endpoint: "POST /meeting/{id}/join",
    route: "/api/v1/meeting/:id/join",
    method: "POST",
    request: (stack, tenant, id) => api(stack, tenant, "POST", `/meeting/${id}/join`, { displayName: "Counted guest" }),
  },
];

const isRedis = (span: ReceivedSpan) => span.attributes["db.system"] === "redis" || span.attributes["db.system.name"] === "redis";
const isPostgresStatement = (span: ReceivedSpan) =>
  (span.attributes["db.system"] === "postgresql" || span.attributes["db.system.name"] === "postgresql") && span.name.startsWith("pg.query");
const isRpcCall = (span: ReceivedSpan) => span.kind === 3 && span.attributes["rpc.system"] === "connect_rpc";

/** The spans of the trace rooted at the gateway's server span for `probe`, once no more arrive. */
async function traceOf(spans: () => ReceivedSpan[], probe: Probe, seen: Set<string>): Promise<ReceivedSpan[]> {
  const root = () =>
    spans().find(
      (span) =>
        span.service === "svc-gateway" &&
        span.kind === 2 &&
        span.attributes["http.route"] === probe.route &&
        span.attributes["http.request.method"] === probe.method &&
        !seen.has(span.traceId),
    );
  let count = -1;
  for (let stable = 0; stable < 5;) {
    await holdStill(200, "while the processes export the request's spans");
    const traceId = root()?.traceId;
    const current = traceId ? spans().filter((span) => span.traceId === traceId).length : 0;
    stable = current > 0 && current === count ? stable + 1 : 0;
    count = current;
  }
  const traceId = root()!.traceId;
  seen.add(traceId);
  return spans().filter((span) => span.traceId === traceId);
}

function countOf(endpoint: string, trace: ReceivedSpan[]): CallCount {
  const database: Record<string, number> = {};
  for (const span of trace.filter(isPostgresStatement)) {
    const service = span.service.replace(/^svc-/, "");
    database[service] = (database[service] ?? 0) + 1;
  }
  const rpcs = trace.filter(isRpcCall);
  return {
    endpoint,
    rpcs: rpcs.length,
    database,
    redis: trace.filter(isRedis).length,
    media: trace.filter((span) => span.kind === 3 && span.scope.includes("undici") && String(span.attributes["url.path"] ?? "").startsWith("/twirp/")).length,
    calls: rpcs.map((span) => `${span.service.replace(/^svc-/, "")} → ${span.attributes["rpc.service"]}/${span.attributes["rpc.method"]}`),
  };
}

/**
 * Counts each public endpoint's calls on a traced stack of its own (with the media server when
 * `media`, as a join opens the room there). Each endpoint is called twice and the second, warm
 * call is counted: caches filled, connections open, as under load.
 */
export async function countCalls(options: { media: boolean; log: (message: string) => void }): Promise<CallCount[]> {
  const otlp = await startOtlpReceiver();
  const stack = await startStack({ media: options.media, env: { ...tracingEnv(otlp), OTEL_TRACES_SAMPLER_ARG: "1" } });
  try {
    const tenant = await createTenant(stack);
    await api(stack, tenant, "POST", "/webhook", { url: "https://example.com/hook/counted", events: ["meeting.ended"] });
    const meeting = (await (await api(stack, tenant, "POST", "/meeting", { title: "Counted", attendees: ["a@example.com"] })).json()) as { id: string };
    const seen = new Set<string>();
    const counts: CallCount[] = [];
    for (const probe of probes) {
      if (probe.route.endsWith("/join") && !options.media) continue;
      for (const warm of [false, true]) {
        const response = await probe.request(stack, tenant, meeting.id);
        if (!response.ok) throw new Error(`${probe.endpoint} answered ${response.status}: ${await response.text()}`);
        await response.arrayBuffer();
        const trace = await traceOf(otlp.spans, probe, seen);
        if (warm) counts.push(countOf(probe.endpoint, trace));
      }
      options.log(`counted ${probe.endpoint}`);
    }
    return counts;
  } finally {
    await stack.stop();
    await otlp.close();
  }
}

/** The counts as a table, one line per endpoint, and the RPCs each makes. */
export function formatCallCounts(counts: CallCount[]): string {
  const lines = ["Calls per request (one warm request each, from its trace):", ""];
  lines.push("| endpoint | internal RPCs | Postgres statements | Redis commands | media server calls |", "|---|---|---|---|---|");
  for (const count of counts) {
    const database = Object.entries(count.database)
      .map(([service, n]) => `${n} ${service}`)
      .join(", ");
    lines.push(
      `| ${count.endpoint} | ${count.rpcs}${count.calls.length ? ` (${count.calls.join("; ")})` : ""} | ${database || "0"} | ${count.redis} | ${count.media} |`,
    );
  }
  return lines.join("\n");
}
