// Meeting-room scenarios of `npm run bench`: join grants under concurrency (how long a person
// waits from opening the join URL to seeing someone else's video: join-phases.ts).
import { RoomServiceClient } from "livekit-server-sdk";
import type { Stack } from "../support/stack.ts";
import type { Tenant } from "../support/tenants.ts";
import { launchChromium } from "../support/chromium.ts";
import { joinMeeting } from "../support/meeting-room-browser.ts";
import { apiBase, callApi } from "../support/rest-client.ts";
import { loop, type LoadResult } from "./load.ts";

export const JOIN_CONCURRENCY = 50;

async function createMeeting(stack: Stack, tenant: Tenant, title: string): Promise<{ id: string; url: string }> {
  const response = await callApi(apiBase(stack), "POST", "/meeting", { key: tenant.apiKey, body: { title } });
  return (await response.json()) as { id: string; url: string };
}

/** Each load's CPU per request in the stack's processes (run.ts wraps each in a CPU meter), around the load alone. */
type Measure = (run: () => Promise<LoadResult>) => Promise<LoadResult>;

/**
 * POST /api/v1/meeting/:id/join from JOIN_CONCURRENCY loops for `durationSeconds`, into a meeting
 * someone is already in (the usual case: only the first joiner opens the room on the media server);
 * then the media server's CreateRoom alone for the same open room at the same concurrency, the
 * call a grant into an open room no longer makes (decision 0007).
 */
export async function joinGrantLatency(
  stack: Stack,
  tenant: Tenant,
  durationSeconds: number,
  measure: Measure = (run) => run(),
): Promise<{ grants: LoadResult; createRoom: LoadResult }> {
  const meeting = await createMeeting(stack, tenant, "Join grants");
  const browser = await launchChromium({ fakeMedia: true });
  try {
    await joinMeeting(browser, meeting.url, "Host");
    const media = stack.media!;
    const rooms = new RoomServiceClient(media.url, media.apiKey, media.apiSecret);
    const createRoom = () => rooms.createRoom({ name: meeting.id, maxParticipants: 250, emptyTimeout: 600 });
    const body = JSON.stringify({ displayName: "Bench participant" });
    const grant = async () => {
      const response = await fetch(`${stack.gatewayUrl}/api/v1/meeting/${meeting.id}/join`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`join grant: ${response.status}`);
    };
    await loop(JOIN_CONCURRENCY, 1, grant); // warm-up
    const grants = await measure(() => loop(JOIN_CONCURRENCY, durationSeconds, grant));
    return { grants, createRoom: await measure(() => loop(JOIN_CONCURRENCY, durationSeconds, createRoom)) };
  } finally {
    await browser.close();
  }
}
