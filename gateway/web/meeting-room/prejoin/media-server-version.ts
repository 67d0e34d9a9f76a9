import { compareVersions, type Room } from "livekit-client";
import { MINIMUM_LIVEKIT_SERVER_VERSION } from "@svc/platform/contract";

/**
 * The version of the connected room's LiveKit server when it is older than the room supports
 * (services/platform/src/contract/media-server.ts), else undefined. With an older server this
 * client connects, but publishing the camera and microphone times out after 15 s and the call
 * breaks; LiveKit states its version only once connected, so this is checked before the room is
 * shown. A server that states no version is taken as it is (nothing to compare).
 */
export function outdatedMediaServerVersion(room: Room): string | undefined {
  const version = room.serverInfo?.version;
  return version && compareVersions(version, MINIMUM_LIVEKIT_SERVER_VERSION) < 0 ? version : undefined;
}
