import * as grpc from "@grpc/grpc-js";
import {
  CreateOrganizationRequestSchema,
  CreateOrganizationResponseSchema,
  CredentialKind,
  VerifyCredentialRequestSchema,
  VerifyCredentialResponseSchema,
} from "@svc/proto/svc/identity/v1/identity_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcJsClient } from "../support/grpc-js.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";

let tenant: Tenant;
let client: ReturnType<typeof grpcJsClient>;
let adminClient: ReturnType<typeof grpcJsClient>;
const fixture = useStack();

beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
  client = grpcJsClient(fixture.stack.urls.identity);
  adminClient = grpcJsClient(fixture.stack.urls.identityAdmin);
});
afterAll(async () => {
  client?.close();
  adminClient?.close();
});

const verify = (metadata: Record<string, string>) =>
  client.unary("/svc.identity.v1.IdentityService/VerifyCredential", VerifyCredentialRequestSchema, VerifyCredentialResponseSchema, {}, metadata);

const failureCode = (call: Promise<unknown>) =>
  call.then(
    () => "succeeded",
    (error: grpc.ServiceError) => error.code,
  );

describe("VerifyCredential called directly by a @grpc/grpc-js client", () => {
  it("resolves an API key in the authorization metadata to its user and organization", async () => {
    const response = await verify({ authorization: `Bearer ${tenant.apiKey}` });
    expect(response.userId).toBe(tenant.userId);
    expect(response.orgId).toBe(tenant.orgId);
    expect(response.kind).toBe(CredentialKind.API_KEY);
    expect(response.scopes).toEqual([]);
    expect(response.clientId).toBe("");
  });

  it("answers UNAUTHENTICATED without metadata, with another scheme, and for an unknown key", async () => {
    expect(await failureCode(verify({}))).toBe(grpc.status.UNAUTHENTICATED);
    expect(await failureCode(verify({ authorization: `Basic ${tenant.apiKey}` }))).toBe(grpc.status.UNAUTHENTICATED);
    expect(await failureCode(verify({ authorization: `Bearer svc_${"x".repeat(43)}` }))).toBe(grpc.status.UNAUTHENTICATED);
  });

  it("answers UNAUTHENTICATED for a key once it is revoked", async () => {
    const other = await createTenant(fixture.stack);
    expect((await verify({ authorization: `Bearer ${other.apiKey}` })).orgId).toBe(other.orgId);
    await fixture.stack.cli("keys", "revoke", "--key-id", other.keyId);
    expect(await failureCode(verify({ authorization: `Bearer ${other.apiKey}` }))).toBe(grpc.status.UNAUTHENTICATED);
  });
});

describe("IdentityAdminService, on its own port, needs the administrator token", () => {
  const createOrganization = (metadata: Record<string, string>, on = adminClient) =>
    on.unary(
      "/svc.identity.v1.IdentityAdminService/CreateOrganization",
      CreateOrganizationRequestSchema,
      CreateOrganizationResponseSchema,
      { name: "Direct" },
      metadata,
    );

  it("refuses a call without it, with a wrong one, and with an API key, creating nothing", async () => {
    const before = await fixture.stack.query("SELECT count(*)::int AS n FROM identity.organizations");
    expect(await failureCode(createOrganization({}))).toBe(grpc.status.UNAUTHENTICATED);
    expect(await failureCode(createOrganization({ authorization: `Bearer ${fixture.stack.env.ADMIN_TOKEN}x` }))).toBe(grpc.status.UNAUTHENTICATED);
    expect(await failureCode(createOrganization({ authorization: `Bearer ${tenant.apiKey}` }))).toBe(grpc.status.UNAUTHENTICATED);
    const after = await fixture.stack.query("SELECT count(*)::int AS n FROM identity.organizations");
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it("is not served on the gRPC port the gateway, meeting and webhook call, not even with the right token", async () => {
    expect(await failureCode(createOrganization({ authorization: `Bearer ${fixture.stack.env.ADMIN_TOKEN}` }, client))).toBe(grpc.status.UNIMPLEMENTED);
  });

  it("serves only the admin API (and health) on the admin port: VerifyCredential is not there", async () => {
    const call = adminClient.unary(
      "/svc.identity.v1.IdentityService/VerifyCredential",
      VerifyCredentialRequestSchema,
      VerifyCredentialResponseSchema,
      {},
      { authorization: `Bearer ${tenant.apiKey}` },
    );
    expect(await failureCode(call)).toBe(grpc.status.UNIMPLEMENTED);
  });

  it("accepts the configured token", async () => {
    const { orgId } = await createOrganization({ authorization: `Bearer ${fixture.stack.env.ADMIN_TOKEN}` });
    const { rows } = await fixture.stack.query("SELECT name FROM identity.organizations WHERE id = $1", [orgId]);
    expect(rows).toEqual([{ name: "Direct" }]);
  });
});
