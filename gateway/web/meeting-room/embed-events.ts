import { RoomEvent, type RemoteParticipant } from "livekit-client";
import type { JoinedSession, Outcome } from "./meeting.ts";

/**
 * The events the room posts to the page that embeds it (docs/meeting-room.md, "Embedding the
 * room"), when the meeting's organization allows that page's origin. Every message is an object
 * with `source: "svc-meeting"`, `version: 1`, `meetingId` and `type`; the other fields depend on
 * the type. Posted with `targetOrigin` set to the parent's allowed origin, never `*`: the browser
 * drops a message whose target is not the parent's actual origin, so nothing reaches another site.
 */
export type EmbedEvent =
  | { type: "joined"; participant: EmbedParticipant; role: JoinedSession["grant"]["role"]; participants: EmbedParticipant[] }
  /** This person's visit ended: they left, were removed or disconnected, or the meeting ended. */
  | { type: "left"; reason: Outcome["kind"] }
  | { type: "participant-joined"; participant: EmbedParticipant }
  | { type: "participant-left"; participant: EmbedParticipant }
  /** A hand went up (`raised: true`) or came down (`raised: false`). */
  | { type: "hand-raised"; participant: EmbedParticipant; raised: boolean }
  | { type: "meeting-ended" };

/** A person in the room as the events name them: the room's participant id and display name. */
export interface EmbedParticipant {
  id: string;
  name: string;
}

export const EMBED_MESSAGE_SOURCE = "svc-meeting";

/** The page's one parent, once `connectEmbeddingParent` found it allowed; undefined: post nothing. */
let parent: { origin: string; meetingId: string } | undefined;

/**
 * Finds out whether the page is framed by an allowed origin. The server lists the organization's
 * allowed origins in `data-embed-origins` on <main> (meeting-page.ts), and the browser already
 * refused any other framing site (frame-ancestors); the page still checks, so that it never posts
 * to a parent it cannot name. The parent's origin is `location.ancestorOrigins[0]` (Chromium,
 * Safari) or else the referrer's origin (Firefox; the parent's default referrer policy sends it).
 * Answers what the room's views call as the visit goes on.
 */
export function connectEmbeddingParent(main: HTMLElement) {
  const allowed = (main.dataset.embedOrigins ?? "").split(" ").filter(Boolean);
  const origin = allowedParentOrigin(allowed);
  parent = origin ? { origin, meetingId: main.dataset.meetingId ?? "" } : undefined;
  let inRoom = false;
  return {
    /** In the room: `joined`, then `participant-joined` / `participant-left` until it is left. */
    joined(session: JoinedSession) {
      if (!parent) return;
      inRoom = true;
      const { room, grant, displayName } = session;
      post({
        type: "joined",
        participant: { id: grant.participantId, name: displayName },
        role: grant.role,
        participants: [...room.remoteParticipants.values()].map(participantOf),
      });
      const onConnected = (participant: RemoteParticipant) => post({ type: "participant-joined", participant: participantOf(participant) });
      const onDisconnected = (participant: RemoteParticipant) => post({ type: "participant-left", participant: participantOf(participant) });
      room.on(RoomEvent.ParticipantConnected, onConnected).on(RoomEvent.ParticipantDisconnected, onDisconnected);
      room.once(RoomEvent.Disconnected, () => room.off(RoomEvent.ParticipantConnected, onConnected).off(RoomEvent.ParticipantDisconnected, onDisconnected));
    },
    /** The visit's end: `left` (after `joined` only), and `meeting-ended` when the meeting ended. */
    outcome(outcome: Outcome) {
      if (inRoom) post({ type: "left", reason: outcome.kind });
      inRoom = false;
      if (outcome.kind === "ended") post({ type: "meeting-ended" });
    },
  };
}

/**
 * `hand-raised` for a hand that went up or came down in the room (anyone's, as the server's
 * participant attributes report it). Nothing when the page is not embedded by an allowed origin.
 */
export function announceHandToParent(participant: { identity: string; name?: string }, raised: boolean) {
  post({ type: "hand-raised", participant: participantOf(participant), raised });
}

function post(event: EmbedEvent) {
  if (!parent) return;
  window.parent.postMessage({ source: EMBED_MESSAGE_SOURCE, version: 1, meetingId: parent.meetingId, ...event }, parent.origin);
}

const participantOf = (participant: { identity: string; name?: string }): EmbedParticipant => ({
  id: participant.identity,
  name: participant.name || participant.identity,
});

function allowedParentOrigin(allowed: string[]): string | undefined {
  if (allowed.length === 0 || window.parent === window) return undefined;
  // Firefox has no ancestorOrigins (TypeScript's DOM types say it always exists).
  const ancestors = location.ancestorOrigins as DOMStringList | undefined;
  const origin = ancestors ? ancestors[0] : originOf(document.referrer);
  return origin && allowed.includes(origin) ? origin : undefined;
}

function originOf(address: string): string | undefined {
  try {
    return new URL(address).origin;
  } catch {
    return undefined; // no referrer (the parent's policy withheld it): no origin to trust
  }
}
