import { randomUUID } from "node:crypto";
import { inTransaction, type Pool } from "@svc/platform/db";
import { insertSubscription } from "../../services/webhook/src/db/subscriptions.ts";
import type { SecretBox } from "../../services/webhook/src/signing/secret-box.ts";
import { generateSigningSecret } from "../../services/webhook/src/signing/signing-secret.ts";

/**
 * A subscription written straight into a webhook schema (no service running), for tests of its
 * queries: `orgId`'s, to `url` (nothing listens on the default), for `events`. Returns its id and
 * signing secret.
 */
export async function storeSubscription(
  pool: Pool,
  secretBox: SecretBox,
  orgId: string,
  { url = "http://127.0.0.1:9/hook", events = ["meeting.ended"] }: { url?: string; events?: string[] } = {},
): Promise<{ id: string; secret: string }> {
  const id = randomUUID();
  const secret = generateSigningSecret();
  const stored = await inTransaction(pool, (client) => insertSubscription(client, { id, orgId, url, events, secretSealed: secretBox.seal(secret, id) }, 100));
  if (stored === "limit-reached") throw new Error("limit reached");
  return { id, secret };
}
