import { describe, expect, it } from "vitest";
import { serviceShutdown } from "./lifecycle.ts";
import { createShutdownDrain } from "./shutdown-drain.ts";

describe("serviceShutdown", () => {
  it("closes listeners after the drain, stops consumers at once, then closes the rest in order", async () => {
    const drain = createShutdownDrain(50);
    const happened: string[] = [];
    const part = (name: string, kind: "stop" | "close") => ({ [kind]: () => happened.push(name) }) as { stop(): unknown } | { close(): unknown };
    const shutdown = serviceShutdown(drain, {
      listeners: [part("server", "close")],
      consumers: [part("bus", "close")],
      thenClose: [part("relay", "stop"), part("callers", "close")],
    });

    const accepting = Promise.all(shutdown.stopAccepting.map((close) => close()));
    expect(drain.draining).toBe(true);
    expect(happened).toEqual(["bus"]);
    await accepting;
    expect(happened).toEqual(["bus", "server"]);
    for (const close of shutdown.thenClose) await close();
    expect(happened).toEqual(["bus", "server", "relay", "callers"]);
  });
});
