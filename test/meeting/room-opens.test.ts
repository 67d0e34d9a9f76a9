import { RoomServiceClient } from "livekit-server-sdk";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { grantJoin, signalConnections } from "../support/join-grants.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { useStack } from "../support/use-stack.ts";
import { createTenant, type Tenant } from "../support/tenants.ts";
import { waitFor } from "../support/wait.ts";

// A join grant opens the meeting's room on the media server (CreateRoom, with the cap) only when
// nobody is in it: a room someone is in is known open, from the media server's webhooks and the
// reconciler (decision 0007). The media server is real (LiveKit), the person in the room a real
// browser (LiveKit reports a participant once its media connection is up); further connections
// are the media server's signalling WebSocket alone. The meeting service's
// `meeting_media_room_opens_total` counts its CreateRoom calls.
const CAP = 4;
let tenant: Tenant;
let rooms: RoomServiceClient;
let browser: Browser;

const fixture = useStack({ media: true, metrics: true, env: { MEETING_MAX_PARTICIPANTS: String(CAP) } });
beforeAll(async () => {
  tenant = await createTenant(fixture.stack);
  rooms = new RoomServiceClient(fixture.stack.media!.url, fixture.stack.media!.apiKey, fixture.stack.media!.apiSecret);
  browser = await launchChromium({ fakeMedia: true });
}, 300_000);
afterAll(async () => {
  connections.closeAll();
  await browser?.close();
});

const api = (method: string, path: string, body?: unknown) => callApi(apiBase(fixture.stack), method, path, { key: tenant.apiKey, body });

const grant = (meetingId: string, displayName: string) => grantJoin(fixture.stack, meetingId, displayName);
const connections = signalConnections();
const connect = connections.connect;

/** How many CreateRoom calls the meeting service's join grants have made. */
async function roomOpens(): Promise<number> {
  const text = await (await fetch(fixture.stack.metricsUrls!.meeting)).text();
  const line = text.split("\n").find((entry) => entry.startsWith("meeting_media_room_opens_total"));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

/** How many people the meeting service records in the meeting's room. */
async function presentCount(meetingId: string): Promise<number> {
  const body = (await (await api("GET", `/meeting/${meetingId}/participants`)).json()) as { participants: { leftAt: string | null }[] };
  return body.participants.filter((visit) => visit.leftAt === null).length;
}

describe("opening a meeting's room", () => {
  it(
    "a grant into a room someone is in makes no CreateRoom; after the room closed, the next grant opens it again, with its cap",
    { timeout: 90_000 },
    async () => {
      const { id, url } = (await (await api("POST", "/meeting", { title: "Opened once" })).json()) as { id: string; url: string };
      const before = await roomOpens();

      // The first grant opens the room; its holder enters (a browser in the room).
      const page = await joinMeeting(browser, url, "First");
      expect(await roomOpens()).toBe(before + 1);
      await waitFor(async () => (await presentCount(id)) === 1, 30_000, "the meeting service records the first person in the room");

      // Grants while someone is in the room: no CreateRoom, and they enter the open room.
      const grants = [await grant(id, "Second"), await grant(id, "Third")];
      expect(await roomOpens(), "grants into an open room").toBe(before + 1);
      for (const joinGrant of grants) expect((await connect(joinGrant)).outcome).toBe("joined");

      // The room closes (everyone leaves, the media server deletes it: room_finished).
      connections.closeAll();
      await page.context().close();
      await rooms.deleteRoom(id);
      await waitFor(async () => (await presentCount(id)) === 0, 15_000, "the meeting service learns the room closed");

      // The next grant opens it again, with the cap (a connection never creates a room on its own).
      const again = await connect(await grant(id, "Again"));
      expect(again.outcome, again.detail).toBe("joined");
      expect(await roomOpens(), "a grant after the room closed").toBe(before + 2);
      const [room] = await rooms.listRooms([id]);
      expect(room?.maxParticipants).toBe(CAP);
    },
  );
});
