import { describe, expect, it } from "vitest";
import type { ClaimedDelivery } from "../db/deliveries.ts";
import { InFlightAttempts } from "./in-flight-attempts.ts";

const delivery = (id: string) => ({ id }) as ClaimedDelivery;

describe("InFlightAttempts", () => {
  it("drain waits for attempts that finish in time and aborts nothing", async () => {
    const inFlight = new InFlightAttempts();
    let finished = false;
    inFlight.track(new Promise<void>((resolve) => setTimeout(resolve, 20)).then(() => void (finished = true)));
    expect(await inFlight.drain(5_000)).toEqual([]);
    expect(finished).toBe(true);
    expect(inFlight.signal.aborted).toBe(false);
  });

  it("past the deadline it aborts the rest, waits for them to end, and answers what they abandoned", async () => {
    const inFlight = new InFlightAttempts();
    // An attempt that ends only when aborted, and sets its delivery aside, as a cut-short request does.
    inFlight.track(
      new Promise<void>((resolve) =>
        inFlight.signal.addEventListener("abort", () => {
          inFlight.abandon(delivery("cut-short"));
          resolve();
        }),
      ),
    );
    const started = Date.now();
    expect((await inFlight.drain(50)).map((each) => each.id)).toEqual(["cut-short"]);
    expect(inFlight.signal.aborted).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it("a failed attempt does not stop the drain", async () => {
    const inFlight = new InFlightAttempts();
    const failing = Promise.reject(new Error("recording failed"));
    failing.catch(() => undefined);
    inFlight.track(failing);
    expect(await inFlight.drain(1_000)).toEqual([]);
  });
});
