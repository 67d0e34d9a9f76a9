import { randomBytes } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { AccessToken } from "livekit-server-sdk";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { notFound, type Pool } from "@svc/platform";
import { errorMetadata } from "@svc/platform/contract";
import { getMeeting, isClosed, markRoomOpened, type MeetingStatus, type StoredMeeting } from "../db/meetings.ts";
import { countPresent } from "../db/room-participants.ts";
import { validateDisplayName } from "./display-name.ts";

export interface MediaServerCredentials {
  /** The WebSocket URL browsers connect to. */
  publicUrl: string;
  apiKey: string;
  apiSecret: string;
}

export interface JoinGrant {
  participantId: string;
  token: string;
  serverUrl: string;
  expiresAt: Date;
  meeting: StoredMeeting;
}

/** A join the meeting will never take (ended, cancelled): `x-gone` makes it HTTP 410 at the gateway. */
const gone = (message: string) => new ConnectError(message, Code.FailedPrecondition, { [errorMetadata.gone]: "true" });
const closedMeeting = (status: MeetingStatus) => gone(status === "cancelled" ? "This meeting was cancelled" : "This meeting has ended");

/**
 * Join grants: the only way into a meeting room. Holding the meeting id is the permission (the
 * join URL is the capability); the grant is a LiveKit token for the room named after the meeting,
 * for a new participant identity, valid for `tokenTtlSeconds` to connect. The media server's
 * secret never leaves this service.
 */
export function createJoinGrants(deps: {
  pool: Pool;
  media: MediaServerCredentials;
  maxParticipants: number;
  tokenTtlSeconds: number;
  /** Grants per client address. */
  limiter: RateLimiterAbstract;
  /**
   * Opens the meeting's room on the media server with the participant cap (a no-op when it is
   * open). The cap cannot travel in the token: LiveKit 1.8 refuses the room configuration that
   * current server SDKs write into tokens.
   */
  openRoom: (meetingId: string, maxParticipants: number) => Promise<void>;
}) {
  const { pool, media, maxParticipants, tokenTtlSeconds, limiter } = deps;

  return async function grantJoin(request: { meetingId: string; displayName: string; clientAddress: string }): Promise<JoinGrant> {
    const displayName = validateDisplayName(request.displayName);
    try {
      await limiter.consume(request.clientAddress || "unknown");
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      const retryAfter = Math.ceil(((rejection as { msBeforeNext?: number }).msBeforeNext ?? 1_000) / 1_000);
      throw new ConnectError("Too many join requests from this address; try again shortly", Code.ResourceExhausted, {
        [errorMetadata.retryAfter]: String(retryAfter),
      });
    }
    const meeting = await getMeeting(pool, request.meetingId);
    if (!meeting) throw notFound("Meeting");
    if (isClosed(meeting.status)) throw closedMeeting(meeting.status);
    // The media server enforces the same cap (the room is opened with it); this check gives a
    // clear answer before the browser tries.
    const present = await countPresent(pool, meeting.id);
    if (present >= maxParticipants) throw new ConnectError(`This meeting is full (${maxParticipants} participants)`, Code.FailedPrecondition);
    if (present === 0) {
      // Recorded first, so an end that comes after closes the room this grant opens.
      if (!(await markRoomOpened(pool, meeting.id))) throw closedMeeting((await getMeeting(pool, meeting.id))?.status ?? "ended");
      await deps.openRoom(meeting.id, maxParticipants);
    }

    const participantId = `p_${randomBytes(12).toString("base64url")}`;
    const token = new AccessToken(media.apiKey, media.apiSecret, { identity: participantId, name: displayName, ttl: tokenTtlSeconds });
    token.addGrant({ roomJoin: true, room: meeting.id, canPublish: true, canSubscribe: true, canPublishData: true, canUpdateOwnMetadata: false });
    return {
      participantId,
      token: await token.toJwt(),
      serverUrl: media.publicUrl,
      expiresAt: new Date(Date.now() + tokenTtlSeconds * 1_000),
      meeting,
    };
  };
}

export type GrantJoin = ReturnType<typeof createJoinGrants>;
