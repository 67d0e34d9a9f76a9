import { randomBytes } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { AccessToken, TrackSource, type VideoGrant } from "livekit-server-sdk";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { addressBucket, notFound, type Pool } from "@svc/platform";
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
const gone = (message: string) => new ConnectError(message, Code.FailedPrecondition, { "x-gone": "true" });
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
  /** Grants per client address (IPv6 counted per /64: addressBucket). */
  limiter: RateLimiterAbstract;
  /** Grants per meeting, whatever the addresses asking. */
  meetingLimiter: RateLimiterAbstract;
  /**
   * Opens the meeting's room on the media server with the participant cap, or confirms it is
   * open; throws when the media server cannot. Called for every grant: the media server is
   * configured not to create rooms on its own (`room.auto_create: false`), so the only rooms
   * that exist are ones opened here, with the cap, whatever the order of grants, closings and
   * connections. The cap cannot travel in the token: LiveKit 1.8 refuses the room configuration
   * that current server SDKs write into tokens.
   */
  openRoom: (meetingId: string, maxParticipants: number) => Promise<void>;
}) {
  const { pool, media, maxParticipants, tokenTtlSeconds, limiter, meetingLimiter } = deps;

  const consume = async (bucket: RateLimiterAbstract, key: string, message: string) => {
    try {
      await bucket.consume(key);
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      const retryAfter = Math.ceil(((rejection as { msBeforeNext?: number }).msBeforeNext ?? 1_000) / 1_000);
      throw new ConnectError(message, Code.ResourceExhausted, { "retry-after": String(retryAfter) });
    }
  };

  return async function grantJoin(request: { meetingId: string; displayName: string; clientAddress: string }): Promise<JoinGrant> {
    const displayName = validateDisplayName(request.displayName);
    await consume(limiter, addressBucket(request.clientAddress), "Too many join requests from this address; try again shortly");
    const meeting = await getMeeting(pool, request.meetingId);
    if (!meeting) throw notFound("Meeting");
    if (isClosed(meeting.status)) throw closedMeeting(meeting.status);
    await consume(meetingLimiter, meeting.id, "Too many join requests for this meeting; try again shortly");
    // The media server enforces the cap (the room is opened with it); this check gives a clear
    // answer before the browser tries.
    const present = await countPresent(pool, meeting.id);
    if (present >= maxParticipants) throw new ConnectError(`This meeting is full (${maxParticipants} participants)`, Code.FailedPrecondition);
    // Recorded first, so an end that comes after closes the room this grant opens.
    if (!(await markRoomOpened(pool, meeting.id))) throw closedMeeting((await getMeeting(pool, meeting.id))?.status ?? "ended");
    try {
      await deps.openRoom(meeting.id, maxParticipants);
    } catch {
      // Without its room (and rooms are never created on connection) nobody can enter.
      throw new ConnectError("The meeting room is unavailable right now; try again shortly", Code.Unavailable);
    }

    const participantId = `p_${randomBytes(12).toString("base64url")}`;
    const token = new AccessToken(media.apiKey, media.apiSecret, { identity: participantId, name: displayName, ttl: tokenTtlSeconds });
    token.addGrant(roomGrant(meeting.id));
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

/**
 * Exactly what the room page uses: entering the room, seeing and hearing the others, and
 * publishing a camera, a microphone and a screen share (video only). No data packets (the page
 * sends none, so nobody can broadcast to the room outside our API), no metadata of one's own,
 * no room administration.
 */
export function roomGrant(meetingId: string): VideoGrant {
  return {
    roomJoin: true,
    room: meetingId,
    canSubscribe: true,
    canPublish: true,
    canPublishSources: [TrackSource.CAMERA, TrackSource.MICROPHONE, TrackSource.SCREEN_SHARE],
    canPublishData: false,
    canUpdateOwnMetadata: false,
  };
}
