import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The request a piece of work belongs to, in every process that handles it: the gateway sets it
 * per HTTP request, Connect servers from the `x-request-id` header, event consumers and webhook
 * deliveries from the context stored with the event. The logger adds it to every line.
 */
const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/** The header that carries the request id between our processes (and back to the API caller). */
export const REQUEST_ID_HEADER = "x-request-id";

/** What a request id from outside may look like; anything else is replaced by a fresh one. */
const acceptableRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

export function isAcceptableRequestId(value: string | null | undefined): value is string {
  return typeof value === "string" && acceptableRequestId.test(value);
}

/** Runs `work` (and everything it starts) as part of request `requestId`. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return requestContext.run({ requestId }, work);
}

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}
