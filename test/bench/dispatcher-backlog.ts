// The webhook dispatcher on its own: a backlog of due deliveries stored straight into the webhook
// schema (one INSERT … SELECT, as if the consumer had queued them during an outage of the
// endpoint), one subscription to a local receiver answering 204, and the time until the receiver
// has seen every one. No gateway, meeting service or Kafka in the path: this is the drain rate.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { DUE_CHANNEL } from "../../services/webhook/src/db/due-notifications.ts";
import type { Stack } from "../support/stack.ts";
import type { Tenant } from "../support/tenants.ts";
import type { Row } from "./row.ts";

export const BACKLOG_GOAL_PER_SECOND = 1_500;

/** A receiver counting each backlog delivery by its sequence number (the body's data.seq). */
function countingReceiver() {
  let counts = new Uint32Array(0);
  let received = 0;
  let lastAt = 0;
  let onProgress: () => void = () => undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      res.writeHead(204).end();
      const seq = (JSON.parse(Buffer.concat(chunks).toString()) as { data: { seq: number } }).data.seq;
      if (seq >= 1 && seq <= counts.length) counts[seq - 1]!++;
      received++;
      lastAt = performance.now();
      onProgress();
    });
  });
  return {
    server,
    /** Starts counting a new backlog of `size` (sequence numbers 1..size). */
    expect(size: number) {
      counts = new Uint32Array(size);
      received = 0;
    },
    /** Resolves when `size` requests arrived, or after `timeoutMs`. */
    async allReceived(size: number, timeoutMs: number) {
      if (received < size) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          onProgress = () => {
            if (received < size) return;
            clearTimeout(timer);
            resolve();
          };
        });
      }
      onProgress = () => undefined;
      const missing = counts.filter((count) => count === 0).length;
      const duplicates = counts.reduce((sum, count) => sum + Math.max(0, count - 1), 0);
      return { lastAt, missing, duplicates };
    },
  };
}

/**
 * Stores `size` due deliveries of `subscriptionId` (with their events) in one transaction and
 * wakes the dispatcher on commit, as storing deliveries does.
 */
async function queueBacklog(stack: Stack, orgId: string, subscriptionId: string, size: number, runId: string) {
  await stack.query(
    `WITH stored_events AS (
       INSERT INTO webhook.events (id, org_id, type, body)
       SELECT $4 || '-' || g, $2, 'meeting.ended', json_build_object('type', 'meeting.ended', 'data', json_build_object('seq', g))::text
       FROM generate_series(1, $1::int) g
       RETURNING id
     ), stored_deliveries AS (
       INSERT INTO webhook.deliveries (id, subscription_id, event_id, status, next_attempt_at)
       SELECT gen_random_uuid(), $3, id, 'pending', now() FROM stored_events
     )
     SELECT pg_notify('${DUE_CHANNEL}', '')`,
    [size, orgId, subscriptionId, runId],
  );
}

/**
 * Drains a warm-up backlog (discarded), then `size` due deliveries, and reports deliveries per
 * second from the commit that queued them to the last one received. Errors: deliveries missing
 * after `timeoutMs`, and duplicates.
 */
export async function dispatcherBacklog(stack: Stack, tenant: Tenant, size: number, warmupSize: number, timeoutMs = 120_000): Promise<Row> {
  const receiver = countingReceiver();
  await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
  try {
    const created = await fetch(`${stack.gatewayUrl}/api/v1/webhook`, {
      method: "POST",
      headers: { authorization: `Bearer ${tenant.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook`, events: ["meeting.ended"] }),
    });
    if (created.status !== 201) throw new Error(`webhook registration failed: ${created.status} ${await created.text()}`);
    const { webhookId } = (await created.json()) as { webhookId: string };

    const drain = async (count: number, runId: string) => {
      receiver.expect(count);
      await queueBacklog(stack, tenant.orgId, webhookId, count, runId);
      const queuedAt = performance.now();
      const { lastAt, missing, duplicates } = await receiver.allReceived(count, timeoutMs);
      return { seconds: (lastAt - queuedAt) / 1000, missing, duplicates };
    };
    await drain(warmupSize, `warmup-${webhookId}`);
    const { seconds, missing, duplicates } = await drain(size, `backlog-${webhookId}`);
    const perSecond = (size - missing) / seconds;
    return {
      scenario: `webhook dispatcher: drain a queued backlog of ${size.toLocaleString("en")} due deliveries`,
      requestsPerSecond: perSecond,
      requests: size - missing,
      errors: missing + duplicates,
      goal: `≥ ${BACKLOG_GOAL_PER_SECOND.toLocaleString("en")}/s`,
      met: perSecond >= BACKLOG_GOAL_PER_SECOND && missing + duplicates === 0,
      note: `${seconds.toFixed(1)} s; ${missing} missing, ${duplicates} duplicates; one endpoint (local receiver, 204)`,
    };
  } finally {
    receiver.server.close();
  }
}
