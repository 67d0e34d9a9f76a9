import { randomBytes } from "node:crypto";
import type { Stack } from "./stack.ts";

export interface Tenant {
  orgId: string;
  userId: string;
  /** The API key itself (`svc_...`), as the CLI printed it once. */
  apiKey: string;
  keyId: string;
  email: string;
  password: string;
}

/**
 * Creates an organization, a user in it and an API key for that user through the admin CLI
 * (so through identity's gRPC admin API), exactly as an operator would. Every call makes a new,
 * unrelated tenant, so tests can check organization isolation by creating two.
 */
export async function createTenant(stack: Stack, options: { name?: string; email?: string } = {}): Promise<Tenant> {
  const suffix = randomBytes(4).toString("hex");
  const email = options.email ?? `user-${suffix}@example.com`;
  const password = `pw-${randomBytes(12).toString("base64url")}`;
  const { orgId } = await stack.cli<{ orgId: string }>("orgs", "create", "--name", options.name ?? `Org ${suffix}`);
  const { userId } = await stack.cli<{ userId: string }>("users", "create", "--org", orgId, "--email", email, "--password", password);
  const { keyId, key } = await stack.cli<{ keyId: string; key: string }>("keys", "create", "--user", userId, "--name", "test");
  return { orgId, userId, apiKey: key, keyId, email, password };
}
