import type http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createLogger } from "@svc/platform";
import { afterEach, describe, expect, it } from "vitest";
import { errorHandler } from "./errors.ts";
import { rateLimit } from "./rate-limit.ts";

let server: http.Server | undefined;
afterEach(() => server?.close());

/** The gateway's limiter in front of a route that answers 204, one trusted proxy supplying the client address. */
async function limitedApp(requestsPerSecond: number): Promise<(clientAddress: string) => Promise<number>> {
  const app = express();
  app.set("trust proxy", 1);
  app.use(rateLimit({ requestsPerSecond, keyPrefix: "t:", logger: createLogger("test", "silent") }));
  app.get("/", (_req, res) => void res.status(204).end());
  app.use(errorHandler(createLogger("test", "silent")));
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server!.once("listening", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (clientAddress) => (await fetch(base, { headers: { "x-forwarded-for": clientAddress } })).status;
}

describe("the gateway's per-address rate limit", () => {
  it("counts an IPv6 client on its /64, so fresh addresses from one /64 share one bucket", async () => {
    const request = await limitedApp(3);
    for (let i = 1; i <= 3; i++) expect(await request(`2001:db8:1:2::${i}`)).toBe(204);
    expect(await request("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe(429);
    expect(await request("2001:db8:1:3::1")).toBe(204);
    expect(await request("198.51.100.7")).toBe(204);
  });
});
