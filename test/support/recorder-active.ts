import { EgressClient, EgressStatus } from "livekit-server-sdk";
import type { Stack } from "./stack.ts";
import { waitFor } from "./wait.ts";

/**
 * Waits until a recorder records (LiveKit's EGRESS_ACTIVE): the recorded time starts there, not at
 * the API call (a room recording loads a page and joins the room first, 1-3 s on an idle machine
 * and much longer on a busy one). `egressIdOf` reads the recording's egress id (undefined until the
 * meeting service stored it). Returns when that was seen.
 */
export async function untilRecorderActive(egress: EgressClient, egressIdOf: () => Promise<string | undefined>, what = "the recorder records"): Promise<number> {
  let egressId: string | undefined;
  await waitFor(
    async () => {
      egressId ??= await egressIdOf();
      return egressId !== undefined && (await egress.listEgress({ egressId }))[0]?.status === EgressStatus.EGRESS_ACTIVE;
    },
    90_000,
    what,
  );
  return Date.now();
}

/** {@link untilRecorderActive} for a recording of a test stack. */
export function recorderActive(stack: Stack, recordingId: string): Promise<number> {
  const egress = new EgressClient(stack.media!.url, stack.media!.apiKey, stack.media!.apiSecret);
  return untilRecorderActive(
    egress,
    async () =>
      (await stack.query<{ egress_id: string | null }>("SELECT egress_id FROM meeting.recordings WHERE id = $1", [recordingId])).rows[0]?.egress_id ??
      undefined,
  );
}
