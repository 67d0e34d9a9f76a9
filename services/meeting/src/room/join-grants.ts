import { randomBytes, randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { AccessToken, TrackSource, type VideoGrant } from "livekit-server-sdk";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { clientAddressKey, notFound } from "@svc/platform";
import { type Pool } from "@svc/platform/db";
import { errorMetadata } from "@svc/platform/contract";
import type { JoinLinkRecord } from "../join-link-store.ts";
import type { LinkRole, LobbyEntryRecord } from "../room-store.ts";
import { enterLobby, lobbyEntryByTicket } from "../db/lobby.ts";
import { openRoomAndAdmit, readJoinState, withdrawAdmission } from "../db/join-state.ts";
import { getMeeting, isClosed } from "../db/meetings.ts";
import type { MeetingStatus, StoredMeeting } from "../meeting-store.ts";
import { isBarred } from "../db/room-admissions.ts";
import { validateDisplayName } from "./display-name.ts";
import type { JoinLinks } from "./join-links.ts";
import { spend } from "./rate-budget.ts";
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
const lobbyFull = () =>
  new ConnectError("Too many people are waiting to join from this address; try again later", Code.ResourceExhausted, { [errorMetadata.retryAfter]: "30" });

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
  /** Joins per client address (IPv6 counted per /64: clientAddressKey), for everyone without a personal budget. */
  limiter: RateLimiterAbstract;
  /** Grants per meeting to people without a personal link (strangers share the URL's budget). */
  meetingLimiter: RateLimiterAbstract;
  /**
   * Grants per personal link, and per lobby admission: an invited person's budget of their own,
   * which no stranger can spend.
   */
  personalLimiter: RateLimiterAbstract;
  /** How many people may wait in a meeting's lobby from one client address at once. */
  lobbyPerAddress: number;
  /**
   * Opens the meeting's room on the media server with the participant cap, or confirms it is
   * open; throws when the media server cannot. Called for a grant into a room nobody is in: the
   * media server is configured not to create rooms on its own (`room.auto_create: false`), so
   * the only rooms that exist are ones opened here, with the cap, whatever the order of grants,
   * closings and connections. The cap cannot travel in the token: LiveKit 1.8 refuses the room
   * configuration that current server SDKs write into tokens.
   */
  openRoom: (meetingId: string, maxParticipants: number) => Promise<void>;
  /** Tells the hosts in the room that someone is waiting (a nudge; they fetch the list). */
  lobbyKnocked: (meetingId: string) => void;
  /** True while the media server creates rooms on connection (room-creation-check.ts): no grant is handed out then. */
  refusesJoins?: () => boolean;
}) {
  const { pool, media, maxParticipants, tokenTtlSeconds, limiter, meetingLimiter, personalLimiter } = deps;

  /** The meeting, with whether this browser session or link was removed from it and how many are in its room, read in one round trip. */
  async function openMeeting(meetingId: string, visitorHash: Buffer | null, linkId: string | null) {
    const state = await readJoinState(pool, meetingId, visitorHash, linkId);
    if (!state) throw notFound("Meeting");
    if (isClosed(state.meeting.status)) throw closedMeeting(state.meeting.status);
    return state;
  }

  /** A personal link's own budget, when the secret is one of this meeting's live links; the address's budget otherwise. */
  async function chargeJoin(meetingId: string, link: JoinLinkRecord | undefined, clientAddress: string) {
    const personal = link && link.meetingId === meetingId && !link.revokedAt && link.expiresAt.getTime() > Date.now();
    if (personal) await spend(personalLimiter, `link:${link.id}`, "Too many join requests with this link; try again shortly");
    else await spend(limiter, clientAddressKey(clientAddress), "Too many join requests from this address; try again shortly");
  }

  /** The token, and the admission that says who the new participant identity is. */
  async function issue(
    meeting: StoredMeeting,
    present: number,
    person: { displayName: string; role: LinkRole; email: string | null; linkId: string | null; visitorHash: Buffer | null; admittedFromLobby: boolean },
  ): Promise<JoinGrant> {
    // The media server enforces the cap (the room is opened with it); this check gives a clear
    // answer before the browser tries.
    if (present >= maxParticipants) throw new ConnectError(`This meeting is full (${maxParticipants} participants)`, Code.FailedPrecondition);
    // A room the media server would create on connection has no cap: serve no grant while it would.
    if (deps.refusesJoins?.()) throw new ConnectError("The meeting rooms are unavailable right now; try again later", Code.Unavailable);
    const participantId = `p_${randomBytes(12).toString("base64url")}`;
    const roomSession = newRoomSecret();
    // Recorded before the room is opened, so an end that comes after closes the room this grant opens.
    const admission = {
      participantId,
      meetingId: meeting.id,
      displayName: person.displayName,
      role: person.role,
      email: person.email,
      linkId: person.linkId,
      visitorHash: person.visitorHash,
      admittedFromLobby: person.admittedFromLobby,
      sessionHash: hashRoomSecret(roomSession),
    };
    if (!(await openRoomAndAdmit(pool, admission))) throw closedMeeting((await getMeeting(pool, meeting.id))?.status ?? "ended");
    // A room someone is in is open, with its cap: presence follows the media server's webhooks
    // (a closed room's room_finished ends every visit) and the reconciler (decision 0007), so
    // only a grant into a room nobody is in opens it. That is the first joiner's; every later
    // grant is a CreateRoom round trip (and half a grant's CPU) lighter.
    if (present === 0) {
      try {
        await deps.openRoom(meeting.id, maxParticipants);
      } catch {
        // Without its room (and rooms are never created on connection) nobody can enter.
        await withdrawAdmission(pool, participantId).catch(() => undefined);
        throw new ConnectError("The meeting room is unavailable right now; try again shortly", Code.Unavailable);
      }
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

  /**
   * A join: the personal link is looked up first, so its holder is charged to the link's own
   * budget (strangers who know only the URL share the address's and the meeting's), then judged
   * against the meeting's invitation as it is now (join-links.ts linkStanding).
   */
  async function grantJoin(request: JoinRequest): Promise<JoinGrant | LobbyWait> {
    const displayName = validateDisplayName(request.displayName);
    const visitorHash = request.visitorKey && isRoomSecret(request.visitorKey) ? hashRoomSecret(request.visitorKey) : null;
    const found = request.link ? await deps.links.find(request.link) : undefined;
    await chargeJoin(request.meetingId, found, request.clientAddress);
    const { meeting, barred, present } = await openMeeting(request.meetingId, visitorHash, found?.meetingId === request.meetingId ? found.id : null);
    const link = request.link ? deps.links.admit(found, meeting) : undefined;
    const role: LinkRole = link?.role ?? "guest";
    if (barred) throw removed();
    const person = { displayName, role, email: link?.email ?? null, linkId: link?.id ?? null, visitorHash, admittedFromLobby: false };
    if (role !== "host" && meeting.roomLocked) throw locked();
    if (role !== "host" && meeting.settings.lobby) {
      const lobbyTicket = newRoomSecret();
      const entered = await enterLobby(
        pool,
        {
          id: randomUUID(),
          meetingId: meeting.id,
          ticketHash: hashRoomSecret(lobbyTicket),
          addressHash: hashRoomSecret(clientAddressKey(request.clientAddress)),
          ...person,
          role,
        },
        deps.lobbyPerAddress,
      );
      if (entered === "full") throw lobbyFull();
      deps.lobbyKnocked(meeting.id);
      return { lobbyTicket, meeting, role };
    }
    if (!link) await spend(meetingLimiter, meeting.id, "Too many join requests for this meeting; try again shortly");
    return issue(meeting, present, person);
  }

  /** How a lobby entry stands; once admitted, with a grant (asked again, a new one, from the admission's own budget). */
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
    await spend(personalLimiter, `lobby:${entry.id}`, "Too many join requests; try again shortly");
    const state = await openMeeting(request.meetingId, entry.visitorHash, entry.linkId);
    // A personal link is judged again: it may have been revoked, or its person re-invited, while they waited.
    const role = entry.linkId ? deps.links.admit(await deps.links.byId(entry.linkId), state.meeting).role : entry.role;
    const grant = await issue(state.meeting, state.present, { ...entry, role, admittedFromLobby: true });
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
