import { expect } from "vitest";
import { apiBase, callApi } from "./rest-client.ts";
import type { Stack } from "./stack.ts";
import { useResource } from "./use-resource.ts";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver.ts";

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

/**
 * A webhook receiver for the test file, started before its tests (beforeAll) and closed after them
 * (afterAll), as useStack does for the stack: call it at the top level of the file, after
 * useStack. What it answers is the receiver itself once started (reading it earlier throws).
 */
export function useWebhookReceiver(): WebhookReceiver {
  const receiver = useResource("the webhook receiver", startWebhookReceiver, (started) => started.close());
  return {
    get baseUrl() {
      return receiver().baseUrl;
    },
    get received() {
      return receiver().received;
    },
    useSecret: (path, secret) => receiver().useSecret(path, secret),
    answer: (path, decide) => receiver().answer(path, decide),
    on: (path) => receiver().on(path),
    close: () => receiver().close(),
  };
}
