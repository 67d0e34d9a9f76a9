import { Code, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { RoomServiceClient } from "livekit-server-sdk";
import { MeetingPageService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { refusal } from "../support/connect-refusal.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantJoin, signalConnections } from "../support/join-grants.ts";
import { validateSignal } from "../support/media-signal.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";

// The participant cap of a meeting room must hold whatever the order of events: grants taken
// while the room was open, the room closing, connections after. The media server is real
// (LiveKit), and connections are its own signalling WebSocket (no media needed to count).
const CAP = 3;
const PER_ADDRESS = 8;
const PER_MEETING = 12;
let tenant: Tenant;
let rooms: RoomServiceClient;

const fixture = useStack({
  media: true,
  env: { MEETING_MAX_PARTICIPANTS: String(CAP), JOIN_GRANTS_PER_MINUTE: String(PER_ADDRESS), JOIN_GRANTS_PER_MEETING_PER_MINUTE: String(PER_MEETING) },
});
beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
  rooms = new RoomServiceClient(fixture.stack.media!.url, fixture.stack.media!.apiKey, fixture.stack.media!.apiSecret);
});
afterAll(() => {
  connections.closeAll();
});

const api = (method: string, path: string, body?: unknown) => callApi(apiBase(fixture.stack), method, path, { key: tenant.apiKey, body });

const grant = (meetingId: string, displayName: string) => grantJoin(fixture.stack, meetingId, displayName);
const connections = signalConnections();
const connect = connections.connect;

describe("the room cap", () => {
  it("holds after a room closes under a grant taken while it was open: the fourth connection is refused", { timeout: 90_000 }, async () => {
    const { id } = (await (await api("POST", "/meeting", { title: "Capped" })).json()) as { id: string };

    // Someone is in the room, and a grant is taken meanwhile.
    const first = await connect(await grant(id, "First"));
    expect(first.outcome, first.detail).toBe("joined");
    await waitFor(async () => (await rooms.listParticipants(id)).length === 1, 10_000, "the first participant in the room");
    const early = await grant(id, "Early");

    // The room closes (as LiveKit closes an emptied room), then the early grant is used.
    first.close();
    await rooms.deleteRoom(id);
    await waitFor(async () => (await rooms.listRooms([id])).length === 0, 10_000, "the room closed");
    const late = await connect(early);
    expect(late.outcome, "a connection never opens a room on its own").toBe("refused");
    expect(await validateSignal(early.serverUrl, early.token)).toMatchObject({ status: 404 });
    expect(await rooms.listRooms([id]), "no room was created by the connection").toHaveLength(0);

    // A grant opens the room when nobody is in it (a room someone is in is known open, decision
    // 0007): once the meeting service has heard that the room closed (room_finished),
    await waitFor(
      async () => {
        const body = (await (await api("GET", `/meeting/${id}/participants`)).json()) as { participants: { leftAt: string | null }[] };
        return body.participants.every((visit) => visit.leftAt !== null);
      },
      15_000,
      "the meeting service learns the room closed",
    );
    // four more people: the first grant reopens the room with its cap, and the fourth is refused.
    const grants = [];
    for (const name of ["A", "B", "C", "D"]) grants.push(await grant(id, name));
    const outcomes = [];
    for (const joinGrant of grants) outcomes.push(await connect(joinGrant));
    expect(outcomes.map((connection) => connection.outcome)).toEqual(["joined", "joined", "joined", "refused"]);
    const [room] = await rooms.listRooms([id]);
    expect(room?.maxParticipants).toBe(CAP);
    expect(await rooms.listParticipants(id)).toHaveLength(CAP);
  });
});

describe("join grant limits", () => {
  const page = () => createClient(MeetingPageService, createGrpcTransport({ baseUrl: fixture.stack.urls.meeting }));
  const newMeeting = async () => ((await (await api("POST", "/meeting", { title: "Limits" })).json()) as { id: string }).id;

  it("count every address of one IPv6 /64 together, and another /64 apart", async () => {
    const meetingId = await newMeeting();
    const join = (clientAddress: string) => page().joinMeeting({ meetingId, displayName: "Six", clientAddress });
    for (let host = 1; host <= PER_ADDRESS; host++) await join(`2001:db8:1:2::${host.toString(16)}`);
    const refused = await refusal(join("2001:db8:1:2:ffff:ffff:ffff:ffff"));
    expect(refused.code).toBe(Code.ResourceExhausted);
    expect(refused.rawMessage).toMatch(/from this address/);
    await expect(join("2001:db8:1:3::1")).resolves.toMatchObject({ meetingId });
  });

  it("limit the grants of one meeting whatever the addresses", async () => {
    const meetingId = await newMeeting();
    const join = (clientAddress: string) => page().joinMeeting({ meetingId, displayName: "Many", clientAddress });
    for (let n = 1; n <= PER_MEETING; n++) await join(`198.51.100.${n}`);
    const refused = await refusal(join("203.0.113.1"));
    expect(refused.code).toBe(Code.ResourceExhausted);
    expect(refused.rawMessage).toMatch(/for this meeting/);
    await expect(
      join("203.0.113.2").then(
        () => "granted",
        () => "refused",
      ),
    ).resolves.toBe("refused");
    await expect(page().joinMeeting({ meetingId: await newMeeting(), displayName: "Elsewhere", clientAddress: "203.0.113.3" })).resolves.toBeDefined();
  });

  it("grant exactly what the room page uses: no data packets, no metadata, no administration", async () => {
    const joinGrant = await grant(await newMeeting(), "Reader");
    const claims = JSON.parse(Buffer.from(joinGrant.token.split(".")[1]!, "base64url").toString()) as { video: Record<string, unknown> };
    expect(claims.video).toEqual({
      roomJoin: true,
      room: expect.any(String),
      canSubscribe: true,
      canPublish: true,
      canPublishSources: ["camera", "microphone", "screen_share"],
      canPublishData: false,
      canUpdateOwnMetadata: false,
    });
  });
});
