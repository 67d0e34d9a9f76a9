import { randomBytes, randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { AccessToken, TrackSource, type VideoGrant } from "livekit-server-sdk";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { clientAddressKey, notFound, type Pool } from "@svc/platform";
import { errorMetadata } from "@svc/platform/contract";
import type { LinkRole } from "../db/join-links.ts";
import { insertLobbyEntry, lobbyEntryByTicket, type LobbyEntryRecord } from "../db/lobby.ts";
import { openRoomAndAdmit, readJoinState, withdrawAdmission } from "../db/join-state.ts";
import { getMeeting, isClosed, type MeetingStatus, type StoredMeeting } from "../db/meetings.ts";
import { isBarred } from "../db/room-admissions.ts";
import { validateDisplayName } from "./display-name.ts";
import type { JoinLinks } from "./join-links.ts";
import { hashRoomSecret, isRoomSecret, newRoomSecret } from "./room-secrets.ts";

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
  role: LinkRole;
  /** The participant's credential for the room's own API (chat; host actions for hosts). */
  roomSession: string;
}

/** A join that has to wait in the lobby: the ticket to ask with (GetLobbyStatus). */
export interface LobbyWait {
  lobbyTicket: string;
  meeting: StoredMeeting;
  role: LinkRole;
}

/** A join the meeting will never take (ended, cancelled): `x-gone` makes it HTTP 410 at the gateway. */
export const gone = (message: string) => new ConnectError(message, Code.FailedPrecondition, { [errorMetadata.gone]: "true" });
export const closedMeeting = (status: MeetingStatus) => gone(status === "cancelled" ? "This meeting was cancelled" : "This meeting has ended");
const removed = () => new ConnectError("You were removed from this meeting", Code.PermissionDenied, { "x-room-state": "removed" });
const locked = () => new ConnectError("This meeting is locked: nobody new can enter", Code.FailedPrecondition, { "x-room-state": "locked" });

export interface JoinRequest {
  meetingId: string;
  displayName: string;
  clientAddress: string;
  /** A personal link's secret, when the person has one. */
  link?: string;
  /** The browser session's key (an HttpOnly cookie the gateway keeps). */
  visitorKey?: string;
}

/**
 * Join grants: the only way into a meeting room. Holding the meeting id is the permission (the
 * join URL is the capability); a personal link adds who the person is (role, e-mail, name). The
 * grant is a LiveKit token for the room named after the meeting, for a new participant identity,
 * valid for `tokenTtlSeconds` to connect. The media server's secret never leaves this service.
 * With the meeting's lobby on, anyone but a host waits for a host to admit them first.
 */
export function createJoinGrants(deps: {
  pool: Pool;
  media: MediaServerCredentials;
  maxParticipants: number;
  tokenTtlSeconds: number;
  links: JoinLinks;
  /** Grants per client address (IPv6 counted per /64: clientAddressKey). */
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
  /** Tells the hosts in the room that someone is waiting (a nudge; they fetch the list). */
  lobbyKnocked: (meetingId: string) => void;
}) {
  const { pool, media, maxParticipants, tokenTtlSeconds, limiter, meetingLimiter } = deps;

  const consume = async (bucket: RateLimiterAbstract, key: string, message: string) => {
    try {
      await bucket.consume(key);
    } catch (rejection) {
      if (rejection instanceof Error) throw rejection;
      const retryAfter = Math.ceil(((rejection as { msBeforeNext?: number }).msBeforeNext ?? 1_000) / 1_000);
      throw new ConnectError(message, Code.ResourceExhausted, { [errorMetadata.retryAfter]: String(retryAfter) });
    }
  };

  /**
   * The limits and the meeting's state, checked for every grant (also after a lobby admission):
   * the meeting, with whether this browser session was removed from it and how many are in its
   * room, read in one round trip.
   */
  async function openMeeting(meetingId: string, clientAddress: string, visitorHash: Buffer | null) {
    await consume(limiter, clientAddressKey(clientAddress), "Too many join requests from this address; try again shortly");
    const state = await readJoinState(pool, meetingId, visitorHash);
    if (!state) throw notFound("Meeting");
    if (isClosed(state.meeting.status)) throw closedMeeting(state.meeting.status);
    await consume(meetingLimiter, state.meeting.id, "Too many join requests for this meeting; try again shortly");
    return state;
  }

  /** The token, and the admission that says who the new participant identity is. */
  async function issue(
    meeting: StoredMeeting,
    present: number,
    person: { displayName: string; role: LinkRole; email: string | null; linkId: string | null; visitorHash: Buffer | null },
  ): Promise<JoinGrant> {
    // The media server enforces the cap (the room is opened with it); this check gives a clear
    // answer before the browser tries.
    if (present >= maxParticipants) throw new ConnectError(`This meeting is full (${maxParticipants} participants)`, Code.FailedPrecondition);
    const participantId = `p_${randomBytes(12).toString("base64url")}`;
    const roomSession = newRoomSecret();
    // Recorded before the room is opened, so an end that comes after closes the room this grant opens.
    const admission = { participantId, meetingId: meeting.id, ...person, sessionHash: hashRoomSecret(roomSession) };
    if (!(await openRoomAndAdmit(pool, admission))) throw closedMeeting((await getMeeting(pool, meeting.id))?.status ?? "ended");
    try {
      await deps.openRoom(meeting.id, maxParticipants);
    } catch {
      // Without its room (and rooms are never created on connection) nobody can enter.
      await withdrawAdmission(pool, participantId).catch(() => undefined);
      throw new ConnectError("The meeting room is unavailable right now; try again shortly", Code.Unavailable);
    }
    const token = new AccessToken(media.apiKey, media.apiSecret, {
      identity: participantId,
      name: person.displayName,
      ttl: tokenTtlSeconds,
      // Shown to everyone in the room (the participant panel); the e-mail stays with us.
      attributes: { role: person.role },
    });
    token.addGrant(roomGrant(meeting, person.role));
    return {
      participantId,
      token: await token.toJwt(),
      serverUrl: media.publicUrl,
      expiresAt: new Date(Date.now() + tokenTtlSeconds * 1_000),
      meeting,
      role: person.role,
      roomSession,
    };
  }

  async function grantJoin(request: JoinRequest): Promise<JoinGrant | LobbyWait> {
    const displayName = validateDisplayName(request.displayName);
    const visitorHash = request.visitorKey && isRoomSecret(request.visitorKey) ? hashRoomSecret(request.visitorKey) : null;
    const { meeting, barred, present } = await openMeeting(request.meetingId, request.clientAddress, visitorHash);
    const link = request.link ? await deps.links.resolve(meeting.id, request.link) : undefined;
    const role: LinkRole = link?.role ?? "guest";
    if (barred || (link && (await isBarred(pool, meeting.id, null, link.id)))) throw removed();
    const person = { displayName, role, email: link?.email ?? null, linkId: link?.id ?? null, visitorHash };
    if (role !== "host" && meeting.roomLocked) throw locked();
    if (role !== "host" && meeting.settings.lobby) {
      const lobbyTicket = newRoomSecret();
      await insertLobbyEntry(pool, { id: randomUUID(), meetingId: meeting.id, ticketHash: hashRoomSecret(lobbyTicket), ...person, role });
      deps.lobbyKnocked(meeting.id);
      return { lobbyTicket, meeting, role };
    }
    return issue(meeting, present, person);
  }

  /** How a lobby entry stands; once admitted, with a grant (asked again, a new one). */
  async function lobbyStatus(request: {
    meetingId: string;
    ticket: string;
    clientAddress: string;
  }): Promise<{ status: "waiting" | "locked" | "denied" | "admitted"; grant?: JoinGrant }> {
    const entry: LobbyEntryRecord | undefined = isRoomSecret(request.ticket)
      ? await lobbyEntryByTicket(pool, request.meetingId, hashRoomSecret(request.ticket))
      : undefined;
    if (!entry) throw notFound("Lobby ticket");
    const meeting = await getMeeting(pool, request.meetingId);
    if (!meeting) throw notFound("Meeting");
    if (isClosed(meeting.status)) throw closedMeeting(meeting.status);
    if (entry.status === "denied") return { status: "denied" };
    if (entry.status === "waiting") return { status: meeting.roomLocked ? "locked" : "waiting" };
    if (await isBarred(pool, meeting.id, entry.visitorHash, entry.linkId)) throw removed();
    const state = await openMeeting(request.meetingId, request.clientAddress, entry.visitorHash);
    const grant = await issue(state.meeting, state.present, entry);
    return { status: "admitted", grant };
  }

  return { grantJoin, lobbyStatus };
}

export type JoinGrants = ReturnType<typeof createJoinGrants>;

/**
 * Exactly what the room page uses: entering the room, seeing and hearing the others, and
 * publishing a camera, a microphone and (unless the meeting keeps it to hosts) a screen share,
 * video only. No data packets (chat goes through the room's API, which relays it, so nobody can
 * broadcast to the room outside it), no metadata of one's own, no room administration: host
 * actions are the room API's, done by this service.
 */
export function roomGrant(meeting: Pick<StoredMeeting, "id" | "settings">, role: LinkRole): VideoGrant {
  const mayShare = meeting.settings.screenShare === "everyone" || role === "host";
  return {
    roomJoin: true,
    room: meeting.id,
    canSubscribe: true,
    canPublish: true,
    canPublishSources: [TrackSource.CAMERA, TrackSource.MICROPHONE, ...(mayShare ? [TrackSource.SCREEN_SHARE] : [])],
    canPublishData: false,
    canUpdateOwnMetadata: false,
  };
}
