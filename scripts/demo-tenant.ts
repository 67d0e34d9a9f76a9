// The demo organization, user and API key that `npm start` creates on the first start of an
// empty embedded database, through identity's admin gRPC API like any operator would.
import { randomBytes } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { IdentityAdminService } from "@svc/proto/svc/identity/v1/identity_pb";
import pg from "pg";

export interface DemoTenant {
  orgId: string;
  userId: string;
  email: string;
  password: string;
  keyId: string;
  apiKey: string;
}

export const DEMO_EMAIL = "demo@example.com";

/**
 * Creates the demo tenant when the identity schema holds no organization yet, and returns it
 * (the only time its password and key are ever available); returns undefined otherwise.
 */
export async function seedDemoTenant(options: { databaseUrl: string; identityAdminUrl: string; adminToken: string }): Promise<DemoTenant | undefined> {
  const db = new pg.Client({ connectionString: options.databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ seeded: boolean }>("SELECT EXISTS (SELECT 1 FROM identity.organizations) AS seeded");
    if (rows[0]!.seeded) return undefined;
  } finally {
    await db.end();
  }
  const admin = createClient(IdentityAdminService, createGrpcTransport({ baseUrl: options.identityAdminUrl }));
  const call = { headers: { authorization: `Bearer ${options.adminToken}` }, timeoutMs: 15_000 };
  const password = randomBytes(12).toString("base64url");
  const { orgId } = await admin.createOrganization({ name: "Demo organization" }, call);
  const { userId } = await admin.createUser({ orgId, email: DEMO_EMAIL, password }, call);
  const { apiKey, key } = await admin.createApiKey({ userId, name: "demo" }, call);
  return { orgId, userId, email: DEMO_EMAIL, password, keyId: apiKey!.keyId, apiKey: key };
}

/** The one-time announcement on stdout. */
export function describeDemoTenant(tenant: DemoTenant, publicUrl: string, demoMeetingUrl?: string): string {
  return [
    "",
    "Demo tenant created on this first start. The password and the API key are shown only now (only hashes are stored):",
    `  organization  ${tenant.orgId}`,
    `  user          ${tenant.email} (${tenant.userId})`,
    `  password      ${tenant.password}`,
    `  dashboard     ${publicUrl}/dashboard (sign in with the e-mail address and password above; the user is an admin)`,
    `  API key       ${tenant.apiKey}`,
    `  try it        curl -X POST -H "Authorization: Bearer ${tenant.apiKey}" ${publicUrl}/api/v1/auth`,
    ...(demoMeetingUrl ? [`  meet          ${demoMeetingUrl}  (a demo meeting: open it in two browser windows)`] : []),
    "",
  ].join("\n");
}
