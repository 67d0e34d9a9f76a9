import { randomUUID } from "node:crypto";
import { afterEach, expect } from "vitest";
import { currentRequestId } from "@svc/platform";
import { type EventBus, type IncomingEvent, type OutgoingEvent } from "@svc/platform/events";
import { waitFor } from "./wait.ts";

/** A probe event on meeting.events carrying `body` as text, so a test tells events apart by key and value. */
export const probeEvent = (key: string, body = key): OutgoingEvent => ({
  topic: "meeting.events",
  key,
  id: randomUUID(),
  value: new TextEncoder().encode(body),
  type: "svc.test.v1.Probe",
});

/** The text a probe event carries. */
export const probeText = (incoming: IncomingEvent) => new TextDecoder().decode(incoming.value);

/**
 * Closes every bus handed to the returned function after each test of the file, so no consumer of
 * one test keeps polling (or holds a group) while the next runs.
 */
export function closeBusesAfterEach(): <Bus extends EventBus>(bus: Bus) => Bus {
  const buses: EventBus[] = [];
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });
  return (bus) => {
    buses.push(bus);
    return bus;
  };
}

/**
 * What both transports promise: an event's context reaches its handler, with the context of its
 * consumption (to store with the work it causes) naming the request that published it; an event
 * without one has none. The batch runs as part of its first event's request.
 */
export async function expectContextReachesHandler(bus: EventBus, requestId: string, timeoutMs: number): Promise<void> {
  const handled: { context: Record<string, string>; consumptionContext: Record<string, string> }[] = [];
  const batchRequestIds: (string | undefined)[] = [];
  await bus.subscriber().start({
    topic: "meeting.events",
    groupId: "g",
    handleBatch: async (events) => {
      batchRequestIds.push(currentRequestId());
      handled.push(...events.map(({ context, consumptionContext }) => ({ context, consumptionContext })));
    },
  });
  await bus.publisher().publish([{ ...probeEvent("m1"), context: { "x-request-id": requestId } }, probeEvent("m2")]);
  await waitFor(() => handled.length === 2, timeoutMs);
  expect(handled.find((entry) => entry.context["x-request-id"] !== undefined)).toMatchObject({
    context: { "x-request-id": requestId },
    consumptionContext: { "x-request-id": requestId },
  });
  expect(handled.filter((entry) => entry.consumptionContext["x-request-id"] === undefined)).toHaveLength(1);
  expect(batchRequestIds.filter((id) => id !== undefined && id !== requestId)).toEqual([]);
}

/**
 * What both transports promise: a batch whose handler failed is redelivered until the handler
 * succeeds, none of it committed meanwhile, and the later events of its key wait for it. The
 * handler fails twice with `failure` while its batch holds the "flaky" event.
 */
export async function expectRedeliveredUntilHandled(bus: EventBus, failure: Error, timeoutMs: number): Promise<void> {
  let failuresLeft = 2;
  const handled: string[] = [];
  await bus.subscriber().start({
    topic: "meeting.events",
    groupId: "g",
    handleBatch: async (events) => {
      if (events.some((incoming) => probeText(incoming) === "flaky") && failuresLeft-- > 0) throw failure;
      handled.push(...events.map(probeText));
    },
  });
  await bus.publisher().publish([probeEvent("same", "flaky"), probeEvent("same", "after")]);
  await waitFor(() => handled.length === 2, timeoutMs);
  expect(handled).toEqual(["flaky", "after"]);
  expect(failuresLeft).toBe(-1);
}
