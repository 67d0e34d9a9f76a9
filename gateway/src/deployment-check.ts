// Checks a running deployment end to end from inside the cluster; the chart's `helm test` pod runs
// it (node gateway/dist/deployment-check.js) with the gateway's ConfigMap and the admin token:
//   1. grpc.health.v1 of identity, meeting and webhook reports SERVING, at the addresses the gateway
//      calls (meeting's and webhook's grpc-js ports);
//   2. the gateway's /healthz and /readyz answer 200;
//   3. POST /api/v1/auth through the gateway Service refuses a call without a credential and, when
//      the chart is given an API key (tests.apiKeySecret), accepts that key.
// Exits 0 when every step passed, 1 otherwise; one line per step on stdout, no secret printed.
import { createClient } from "@connectrpc/connect";
import { eventually } from "@svc/platform";
import { internalTransport } from "@svc/platform/grpc";
import { Health, HealthCheckResponse_ServingStatus as ServingStatus } from "@svc/proto/health/v1/health_pb";

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

async function step(name: string, run: () => Promise<string>): Promise<void> {
  const started = Date.now();
  const detail = await run();
  process.stdout.write(`ok   ${name} (${Date.now() - started} ms)${detail ? `: ${detail}` : ""}\n`);
}

async function main() {
  const services = { identity: required("IDENTITY_URL"), meeting: required("MEETING_URL"), webhook: required("WEBHOOK_URL") };
  const gatewayUrl = required("GATEWAY_URL");
  for (const [name, url] of Object.entries(services)) {
    await step(`${name} gRPC health`, async () => {
      const health = createClient(Health, internalTransport(url));
      const { status } = await eventually(() => health.check({ service: "" }, { timeoutMs: 3_000 }), 20_000);
      if (status !== ServingStatus.SERVING) throw new Error(`${name} reports ${ServingStatus[status]}`);
      return `${url} SERVING`;
    });
  }
  for (const path of ["/healthz", "/readyz"]) {
    await step(`gateway ${path}`, async () => {
      const response = await eventually(() => fetch(new URL(path, gatewayUrl), { signal: AbortSignal.timeout(5_000) }), 20_000);
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
      return `${response.status}`;
    });
  }
  const auth = (authorization?: string) =>
    fetch(new URL("/api/v1/auth", gatewayUrl), {
      method: "POST",
      headers: authorization ? { authorization } : {},
      signal: AbortSignal.timeout(5_000),
    });
  await step("POST /api/v1/auth without a credential is refused", async () => {
    const response = await auth();
    if (response.status !== 401) throw new Error(`answered ${response.status}`);
    return "401";
  });
  // A key an operator made with the admin CLI (kubectl exec into an identity pod: the admin port
  // admits no chart component), handed over in the Secret tests.apiKeySecret names.
  const key = process.env.CHECK_API_KEY;
  if (key) {
    await step("POST /api/v1/auth with the operator's API key", async () => {
      const response = await auth(`Bearer ${key}`);
      const body = (await response.json()) as { valid?: boolean; orgId?: string; kind?: string };
      if (response.status !== 200 || body.valid !== true || !body.orgId) throw new Error(`answered ${response.status} ${JSON.stringify(body)}`);
      return `200, organization ${body.orgId}`;
    });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stdout.write(`FAIL ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
