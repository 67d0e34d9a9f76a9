import { MINIMUM_LIVEKIT_SERVER_VERSION } from "@svc/platform/contract";
import type { Logger } from "@svc/platform";

/** What the start-up look at the configured LiveKit found. */
export type MediaServerSignalling = "current" | "too-old" | "unreachable";

/**
 * Says at start which LiveKit server the meeting room needs, and whether the configured one is
 * older. LiveKit publishes its version only to clients that join a room, so this asks for the
 * signalling path the room page's client needs first, `/rtc/v1/validate`, without a token:
 * servers that have it answer 401 (no token), older ones (LiveKit 1.8 and before) 404. The page
 * itself compares the exact version after connecting and explains a refusal
 * (gateway/web/meeting-room/prejoin/media-server-version.ts).
 */
export async function checkMediaServer(deps: { apiUrl: string; logger: Logger; timeoutMs?: number }): Promise<MediaServerSignalling> {
  const { apiUrl, logger } = deps;
  const needs = `the meeting room needs LiveKit server ${MINIMUM_LIVEKIT_SERVER_VERSION} or later`;
  let status: number;
  try {
    const response = await fetch(`${apiUrl}/rtc/v1/validate`, { signal: AbortSignal.timeout(deps.timeoutMs ?? 5_000) });
    await response.body?.cancel();
    status = response.status;
  } catch (error) {
    logger.warn(
      { err: error, livekitUrl: apiUrl, minimumLivekitVersion: MINIMUM_LIVEKIT_SERVER_VERSION },
      `${needs}; LIVEKIT_URL could not be reached to check it`,
    );
    return "unreachable";
  }
  if (status === 404) {
    logger.error(
      { livekitUrl: apiUrl, minimumLivekitVersion: MINIMUM_LIVEKIT_SERVER_VERSION },
      `${needs}, and LIVEKIT_URL runs an older one (it has no /rtc/v1 signalling): people cannot join meetings until it is upgraded; the room page tells them so`,
    );
    return "too-old";
  }
  logger.info(
    { livekitUrl: apiUrl, minimumLivekitVersion: MINIMUM_LIVEKIT_SERVER_VERSION },
    `${needs}; LIVEKIT_URL serves its signalling (the room page checks the exact version at each join)`,
  );
  return "current";
}
