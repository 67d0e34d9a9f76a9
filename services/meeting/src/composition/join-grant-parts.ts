import type { RoomServiceClient } from "livekit-server-sdk";
import { startPeriodicTask, type Logger } from "@svc/platform";
import type { Pool } from "@svc/platform/db";
import { counterIn, type Registry } from "@svc/platform/telemetry";
import type { Config } from "../config.ts";
import { hostsOnline } from "../db/room-admissions.ts";
import { createJoinGrants } from "../room/join-grants.ts";
import type { JoinLinks } from "../room/join-links.ts";
import { ROOM_TOPICS, type RoomActions } from "../room/room-actions.ts";
import { createRoomCreationGuard, probeRoomCreation } from "../room/room-creation-check.ts";
import type { RateLimits } from "./rate-limits.ts";

/**
 * Join grants, with their rate limits, the lobby's knock, and the guard that refuses them while
 * the media server creates rooms on connection. With an external LiveKit we cannot see its
 * configuration: it is asked now (before the first grant) and again every reconciliation interval.
 */
export async function startJoinGrants(deps: {
  config: Config;
  pool: Pool;
  links: JoinLinks;
  rooms: RoomServiceClient;
  actions: RoomActions;
  rateLimits: RateLimits;
  metrics: Registry | undefined;
  logger: Logger;
}) {
  const { config, pool, actions, rateLimits, logger } = deps;
  const roomCreation = createRoomCreationGuard({ probe: () => probeRoomCreation(config.livekit), logger });
  await roomCreation.check();
  const roomCreationWatch = startPeriodicTask("check-room-creation", config.ROOM_RECONCILE_INTERVAL_MS, roomCreation.check, logger);
  // A grant into a room someone is in makes no CreateRoom (join-grants.ts): this counts the ones that do.
  const roomOpens = deps.metrics
    ? counterIn(deps.metrics, "meeting_media_room_opens_total", "CreateRoom calls made by join grants to open a meeting's room on the media server.")
    : undefined;
  const grants = createJoinGrants({
    pool,
    links: deps.links,
    refusesJoins: roomCreation.refusesJoins,
    // The hosts in the room hear a knock (their page fetches the lobby list).
    lobbyKnocked: (meetingId) =>
      void hostsOnline(pool, meetingId).then(
        (hosts) => (hosts.length > 0 ? actions.broadcast(meetingId, ROOM_TOPICS.lobby, { type: "knock" }, hosts) : undefined),
        (error: unknown) => logger.warn({ err: error, meetingId }, "could not tell the hosts about the lobby"),
      ),
    media: config.livekit,
    maxParticipants: config.MEETING_MAX_PARTICIPANTS,
    tokenTtlSeconds: config.JOIN_TOKEN_TTL_SECONDS,
    limiter: rateLimits("join-grants", config.JOIN_GRANTS_PER_MINUTE),
    meetingLimiter: rateLimits("join-grants-per-meeting", config.JOIN_GRANTS_PER_MEETING_PER_MINUTE),
    personalLimiter: rateLimits("join-grants-per-link", config.JOIN_GRANTS_PER_LINK_PER_MINUTE),
    lobbyPerAddress: config.LOBBY_WAITING_PER_ADDRESS,
    // CreateRoom opens the room or, when it is open, keeps it (with its cap). A room nobody
    // enters closes when the grant's token can no longer be used.
    openRoom: (meetingId, maxParticipants) => {
      roomOpens?.inc();
      return deps.rooms.createRoom({ name: meetingId, maxParticipants, emptyTimeout: config.JOIN_TOKEN_TTL_SECONDS }).then(
        () => undefined,
        (error: unknown) => {
          logger.warn({ err: error, meetingId }, "could not open the media room");
          throw error;
        },
      );
    },
  });
  return { grants, roomCreationWatch };
}
