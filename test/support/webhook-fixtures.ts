import { expect } from "vitest";
import { apiBase, callApi } from "./rest-client.ts";
import type { Stack } from "./stack.ts";
import type { WebhookReceiver } from "./webhook-receiver.ts";

export interface ReceiverSubscription {
  /** Event types (default meeting.ended). */
  events?: string[];
  rateLimitPerSecond?: number;
}

/**
 * Subscribes the organization of `key` to `path` on the receiver through the REST API (201), and
 * tells the receiver the signing secret to verify that path's deliveries with.
 */
export async function subscribeReceiver(stack: Stack, receiver: WebhookReceiver, key: string, path: string, options: ReceiverSubscription = {}) {
  const body = { url: `${receiver.baseUrl}${path}`, events: options.events ?? ["meeting.ended"], ...options };
  const response = await callApi(apiBase(stack), "POST", "/webhook", { key, body });
  expect(response.status).toBe(201);
  const { webhookId, secret } = (await response.json()) as { webhookId: string; secret: string };
  receiver.useSecret(path, secret);
  return { webhookId, secret };
}
