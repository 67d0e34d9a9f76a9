import { createHash, randomBytes } from "node:crypto";
import { AccessToken } from "livekit-server-sdk";
import type { Stack } from "./stack.ts";

/** A participant as LiveKit describes it in its webhooks. */
export interface MediaParticipant {
  sid: string;
  identity: string;
  name: string;
  joinedAtMs: number;
}

export const mediaParticipant = (name: string, joinedAtMs = Date.now()): MediaParticipant => ({
  sid: `PA_${randomBytes(6).toString("hex")}`,
  identity: `p_${randomBytes(6).toString("hex")}`,
  name,
  joinedAtMs,
});

export interface MediaWebhookEvent {
  event: "participant_joined" | "participant_left" | "room_finished" | "room_started";
  meetingId: string;
  participant?: MediaParticipant;
  id?: string;
  createdAtMs?: number;
}

/** The JSON body LiveKit posts (protobuf JSON of livekit.WebhookEvent). */
export function mediaWebhookBody(event: MediaWebhookEvent): string {
  const createdAt = Math.floor((event.createdAtMs ?? Date.now()) / 1_000);
  return JSON.stringify({
    event: event.event,
    id: event.id ?? `EV_${randomBytes(8).toString("hex")}`,
    createdAt: String(createdAt),
    room: { sid: `RM_${event.meetingId.slice(0, 8)}`, name: event.meetingId },
    ...(event.participant
      ? {
          participant: {
            sid: event.participant.sid,
            identity: event.participant.identity,
            name: event.participant.name,
            joinedAt: String(Math.floor(event.participant.joinedAtMs / 1_000)),
            joinedAtMs: String(event.participant.joinedAtMs),
            state: event.event === "participant_left" ? "DISCONNECTED" : "ACTIVE",
          },
        }
      : {}),
  });
}

/** Signs a body the way LiveKit does: a JWT of the API key whose `sha256` claim covers the body. */
export async function signMediaWebhook(body: string, apiKey: string, apiSecret: string): Promise<string> {
  const token = new AccessToken(apiKey, apiSecret);
  token.sha256 = createHash("sha256").update(body).digest("base64");
  return token.toJwt();
}

/** Posts a correctly signed media-server webhook to the stack's meeting service; returns the status. */
export async function sendMediaWebhook(stack: Stack, event: MediaWebhookEvent, body = mediaWebhookBody(event)): Promise<number> {
  const authorization = await signMediaWebhook(body, stack.env.LIVEKIT_API_KEY!, stack.env.LIVEKIT_API_SECRET!);
  const response = await fetch(stack.mediaWebhookUrl, { method: "POST", headers: { "content-type": "application/webhook+json", authorization }, body });
  return response.status;
}
