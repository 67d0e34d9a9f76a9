import { create } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { ServerReflectionRequestSchema, ServerReflectionResponseSchema, type ServerReflectionResponse } from "@svc/proto/grpc/reflection/v1/reflection_pb";
import { HealthCheckRequestSchema, HealthCheckResponse_ServingStatus, HealthCheckResponseSchema } from "@svc/proto/health/v1/health_pb";
import { beforeAll, describe, expect, it } from "vitest";
import { READINESS_CACHE_MS } from "../../gateway/src/routes/health.ts";
import { grpcJsClient } from "../support/grpc-js.ts";
import { useStack } from "../support/use-stack.ts";
import { waitFor } from "../support/wait.ts";

const fixture = useStack();

beforeAll(() => {});

const services = [
  ["identity", "svc.identity.v1.IdentityService"],
  ["meeting", "svc.meeting.v1.MeetingService"],
  ["webhook", "svc.webhook.v1.WebhookService"],
] as const;

describe("every service speaks plain gRPC (a @grpc/grpc-js client, not Connect)", () => {
  it.each(services)("%s answers grpc.health.v1 Check with SERVING", async (name) => {
    const client = grpcJsClient(fixture.stack.urls[name]);
    const response = await client.unary("/grpc.health.v1.Health/Check", HealthCheckRequestSchema, HealthCheckResponseSchema, {});
    client.close();
    expect(response.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  });

  it.each(services)("%s refuses a health check for an unknown service with NOT_FOUND", async (name) => {
    const client = grpcJsClient(fixture.stack.urls[name]);
    const failure = await client
      .unary("/grpc.health.v1.Health/Check", HealthCheckRequestSchema, HealthCheckResponseSchema, { service: "no.such.Service" })
      .catch((error: grpc.ServiceError) => error);
    client.close();
    expect((failure as grpc.ServiceError).code).toBe(grpc.status.NOT_FOUND);
  });

  it.each(services)("%s lists its service through server reflection and returns its descriptor", async (name, serviceName) => {
    const client = grpcJsClient(fixture.stack.urls[name]);
    const call = client.bidi("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", ServerReflectionRequestSchema, ServerReflectionResponseSchema);
    const responses: ServerReflectionResponse[] = [];
    const done = new Promise<void>((resolve, reject) => {
      call.on("data", (response: ServerReflectionResponse) => responses.push(response));
      call.on("end", resolve);
      call.on("error", reject);
    });
    call.write(create(ServerReflectionRequestSchema, { messageRequest: { case: "listServices", value: "*" } }));
    call.write(create(ServerReflectionRequestSchema, { messageRequest: { case: "fileContainingSymbol", value: serviceName } }));
    call.end();
    await done;
    client.close();

    const listed = responses[0]!.messageResponse;
    expect(listed.case).toBe("listServicesResponse");
    const names = listed.case === "listServicesResponse" ? listed.value.service.map((service) => service.name) : [];
    expect(names).toEqual(expect.arrayContaining([serviceName, "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection"]));

    const file = responses[1]!.messageResponse;
    expect(file.case).toBe("fileDescriptorResponse");
    expect(file.case === "fileDescriptorResponse" && file.value.fileDescriptorProto.length).toBeGreaterThan(0);
  });
});

describe("gateway health", () => {
  it("GET /healthz answers 200", async () => {
    const response = await fetch(`${fixture.stack.gatewayUrl}/healthz`);
    expect(response.status).toBe(200);
  });

  it("GET /readyz answers 200 when every service is SERVING and 503 naming the one that is down", async () => {
    const readyzStatus = async () => (await fetch(`${fixture.stack.gatewayUrl}/readyz`)).status;
    expect(await readyzStatus()).toBe(200);
    await fixture.stack.kill("webhook");
    // An answer is reused for READINESS_CACHE_MS: the first fresh one must say 503 and name the service.
    await waitFor(async () => (await readyzStatus()) !== 200, READINESS_CACHE_MS + 5_000, "/readyz still answered 200 after its cache time");
    const response = await fetch(`${fixture.stack.gatewayUrl}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ services: { webhook: "unreachable", identity: "serving" } });
    await fixture.stack.start("webhook");
    await waitFor(async () => (await readyzStatus()) === 200, READINESS_CACHE_MS + 5_000, "/readyz did not answer 200 again after the restart");
  });
});
