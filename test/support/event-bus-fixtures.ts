import { randomUUID } from "node:crypto";
import { afterEach } from "vitest";
import type { EventBus, IncomingEvent, OutgoingEvent } from "@svc/platform";

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
