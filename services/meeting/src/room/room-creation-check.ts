import { randomBytes } from "node:crypto";
import { AccessToken } from "livekit-server-sdk";
import type { Logger } from "@svc/platform";

/** Whether the media server creates rooms on connection (`room.auto_create`), as far as we can tell. */
export type RoomCreation = "off" | "on" | "unknown";

/**
 * Asks the media server whether it would let a token into a room that does not exist, the way
 * livekit-client does after a failed connection (`/rtc/validate`): 404 "requested room does not
 * exist" means rooms are created only by us (`room.auto_create: false`); 200 means a connection
 * would create the room itself, without the participant cap our grants open it with. The room
 * asked about is a random name nobody uses, and validation creates nothing.
 */
export async function probeRoomCreation(media: { apiUrl: string; apiKey: string; apiSecret: string }): Promise<RoomCreation> {
  const token = new AccessToken(media.apiKey, media.apiSecret, { identity: "svc-room-creation-probe", ttl: 60 });
  token.addGrant({ roomJoin: true, room: `svc-probe-${randomBytes(12).toString("hex")}` });
  try {
    const url = new URL(`${media.apiUrl}/rtc/validate`);
    url.searchParams.set("access_token", await token.toJwt());
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
    if (response.status === 404) return "off";
    if (response.ok) return "on";
    return "unknown";
  } catch {
    return "unknown";
  }
}

/**
 * The meeting service's guard against a media server that creates rooms on connection: checked at
 * start and again periodically (`check`); while it is on, join grants are refused (`refusesJoins`)
 * and every check says why in the log, since such a room has no participant cap and our rules
 * (the cap, a closed room staying closed) would not hold.
 */
export function createRoomCreationGuard(deps: { probe: () => Promise<RoomCreation>; logger: Logger }) {
  let state: RoomCreation = "unknown";
  return {
    refusesJoins: () => state === "on",
    async check(): Promise<RoomCreation> {
      const seen = await deps.probe();
      if (seen === "on")
        deps.logger.error(
          "the media server creates rooms on connection (LiveKit room.auto_create is on): such rooms have no participant cap, so join grants are refused until it is set to false in LiveKit's configuration",
        );
      else if (seen === "off" && state === "on") deps.logger.info("the media server no longer creates rooms on connection: join grants are served again");
      if (seen !== "unknown") state = seen;
      return seen;
    },
  };
}

export type RoomCreationGuard = ReturnType<typeof createRoomCreationGuard>;
