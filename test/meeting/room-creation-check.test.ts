import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { startMediaServer } from "../../scripts/media-server.ts";
import { freePorts } from "../support/infra.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { createTenant } from "../support/tenants.ts";
import { useResource } from "../support/use-resource.ts";
import { useStack } from "../support/use-stack.ts";

// An external LiveKit that creates rooms on connection (room.auto_create on: a misconfiguration a
// platform team can make, since the chart does not deploy LiveKit). A room it creates has no
// participant cap, so the meeting service must notice at start and refuse to hand out grants.
const misconfigured = useResource(
  "a LiveKit with room.auto_create on",
  async () => {
    const [port, rtcTcpPort, rtcUdpPort] = await freePorts(3);
    const credentials = { apiKey: `test-${randomBytes(4).toString("hex")}`, apiSecret: randomBytes(32).toString("base64url") };
    const server = await startMediaServer({
      port: port!,
      rtcTcpPort: rtcTcpPort!,
      rtcUdpPort: rtcUdpPort!,
      ...credentials,
      webhookUrl: "http://127.0.0.1:9/unused",
      autoCreateRooms: true,
    });
    return { server, port: port!, ...credentials };
  },
  ({ server }) => server.stop(),
);
const fixture = useStack(() => ({
  env: {
    LIVEKIT_URL: `http://127.0.0.1:${misconfigured().port}`,
    LIVEKIT_PUBLIC_URL: `ws://127.0.0.1:${misconfigured().port}`,
    LIVEKIT_API_KEY: misconfigured().apiKey,
    LIVEKIT_API_SECRET: misconfigured().apiSecret,
  },
}));

it("a media server that creates rooms on connection: joins are refused with 503, and the log says why", { timeout: 60_000 }, async () => {
  const tenant = await createTenant(fixture.stack);
  const meeting = (await (await callApi(apiBase(fixture.stack), "POST", "/meeting", { key: tenant.apiKey, body: { title: "Uncapped" } })).json()) as {
    id: string;
  };
  const join = await callApi(apiBase(fixture.stack), "POST", `/meeting/${meeting.id}/join`, { body: { displayName: "Ada" } });
  expect(join.status).toBe(503);
  expect(fixture.stack.logs("meeting")).toContain("LiveKit room.auto_create is on");
});
