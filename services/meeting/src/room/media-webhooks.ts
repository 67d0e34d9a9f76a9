import http from "node:http";
import type { EgressInfo, WebhookEvent, WebhookReceiver } from "livekit-server-sdk";
import type { Logger } from "@svc/platform";
import { isMeetingId } from "../meeting-id.ts";
import { EGRESS_PARTICIPANT_KIND } from "../recording/recorder.ts";
import type { PublishedTrack } from "../recording/speaker-tracks.ts";
import { MAX_DISPLAY_NAME_LENGTH } from "./display-name.ts";
import type { MeetingLifecycle, ParticipantPresence } from "./meeting-lifecycle.ts";

export const MEDIA_WEBHOOK_PATH = "/livekit/webhook";
// LiveKit's webhook bodies are small JSON documents; anything larger is not from it.
const MAX_BODY_BYTES = 256 * 1024;

export interface MediaWebhookDependencies {
  /** Verifies the signature (a JWT over the body's SHA-256, signed with our API secret). */
  receiver: WebhookReceiver;
  lifecycle: MeetingLifecycle;
  /** Removes a participant from a room (someone who entered an ended meeting, or whom the room refuses). */
  evict: (meetingId: string, participantId: string) => Promise<void>;
  /** A recorder's run changed (egress_started, egress_updated, egress_ended). */
  egressNotified?: (info: EgressInfo) => Promise<void>;
  /** Someone entered a meeting's room (an automatic recording may start). */
  participantEntered?: (meetingId: string) => void;
  /** Someone published a track (a recording being transcribed takes each microphone's own audio). */
  trackPublished?: (meetingId: string, published: PublishedTrack) => void;
  logger: Logger;
}

/** The presence a LiveKit participant notification describes. */
export function presenceOf(meetingId: string, participant: NonNullable<WebhookEvent["participant"]>, fallbackTime: Date): ParticipantPresence {
  const joinedAtMs = Number(participant.joinedAtMs) || Number(participant.joinedAt) * 1_000;
  // Names come from our join grants (already validated); anything else is shortened to fit.
  const name = [...(participant.name || participant.identity)].slice(0, MAX_DISPLAY_NAME_LENGTH).join("").trim() || "Participant";
  return {
    meetingId,
    sessionId: participant.sid,
    participantId: participant.identity,
    displayName: name,
    joinedAt: joinedAtMs > 0 ? new Date(joinedAtMs) : fallbackTime,
  };
}

/**
 * Applies one verified notification. Every notification has an id and is applied at most once,
 * so LiveKit's redeliveries (and replays of a captured request) change nothing.
 */
export async function applyMediaWebhook(
  event: WebhookEvent,
  deps: Pick<MediaWebhookDependencies, "lifecycle" | "evict" | "logger" | "egressNotified" | "participantEntered" | "trackPublished">,
): Promise<void> {
  if (event.egressInfo && event.event.startsWith("egress_")) {
    if (isMeetingId(event.egressInfo.roomName)) await deps.egressNotified?.(event.egressInfo);
    return;
  }
  const meetingId = event.room?.name ?? "";
  if (!isMeetingId(meetingId) || !event.id) return; // not one of our rooms
  // A recorder joins the room it records as a hidden participant: it is not one of the meeting's
  // people (it must not keep an emptied meeting going, nor appear in its attendance).
  if (event.participant?.kind === EGRESS_PARTICIPANT_KIND) return;
  const at = Number(event.createdAt) > 0 ? new Date(Number(event.createdAt) * 1_000) : new Date();
  switch (event.event) {
    case "participant_joined": {
      if (!event.participant) return;
      const outcome = await deps.lifecycle.participantJoined(presenceOf(meetingId, event.participant, at), event.id);
      // Worth an operator's eye: someone connected with a token the room's rules no longer honour.
      if (outcome.refused)
        deps.logger.warn({ meetingId, participantId: event.participant.identity, reason: outcome.refused }, "refused a connection to a meeting room");
      if (outcome.evict) await deps.evict(meetingId, event.participant.identity);
      else deps.participantEntered?.(meetingId);
      return;
    }
    case "participant_left":
      if (event.participant) await deps.lifecycle.participantLeft(presenceOf(meetingId, event.participant, at), at, event.id);
      return;
    case "room_finished":
      await deps.lifecycle.roomClosed(meetingId, at, event.id);
      return;
    case "track_published":
      if (event.participant && event.track) deps.trackPublished?.(meetingId, { participant: event.participant, track: event.track });
      return;
    default:
      // room_started, track_unpublished, ...: presence does not depend on them.
      return;
  }
}

/**
 * The HTTP listener LiveKit posts its webhooks to (`POST /livekit/webhook`). It is internal: only
 * the media server calls it, and every request must carry LiveKit's signature; a forged or
 * tampered request is refused with 401 and changes nothing. A failure to apply answers 500 so
 * LiveKit retries; reconciliation repairs anything that is lost anyway.
 */
export function startMediaWebhookListener(options: MediaWebhookDependencies & { host: string; port: number }): Promise<http.Server> {
  const { receiver, logger } = options;
  const server = http.createServer(async (req, res) => {
    const reply = (status: number, message: string) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: message }));
    };
    if (req.url !== MEDIA_WEBHOOK_PATH) return reply(404, "Not found");
    if (req.method !== "POST") return reply(405, "Method not allowed");
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return reply(413, "Body too large");
      chunks.push(chunk);
    }
    let event: WebhookEvent;
    try {
      event = await receiver.receive(Buffer.concat(chunks).toString("utf8"), req.headers.authorization);
    } catch (error) {
      logger.warn(
        { reason: error instanceof Error ? error.message : String(error), remote: req.socket.remoteAddress },
        "refused a media-server webhook with a bad signature",
      );
      return reply(401, "Invalid webhook signature");
    }
    try {
      await applyMediaWebhook(event, options);
      res.writeHead(200).end();
    } catch (error) {
      logger.error({ err: error, webhookEvent: event.event, webhookId: event.id }, "failed to apply a media-server webhook");
      reply(500, "Internal server error");
    }
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}
