import { createClient, type Client } from "@connectrpc/connect";
import { internalTransport } from "@svc/platform/grpc";
import { Health } from "@svc/proto/health/v1/health_pb";
import { EmbeddingService, IdentityService } from "@svc/proto/svc/identity/v1/identity_pb";
import { MeetingPageService, MeetingRoomService, MeetingService } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { RecordingFileService, RecordingService } from "@svc/proto/svc/meeting/v1/recording_pb";
import { TranscriptFileService, TranscriptService } from "@svc/proto/svc/meeting/v1/transcript_pb";
import { WebhookService } from "@svc/proto/svc/webhook/v1/webhook_pb";
import type { Config } from "./config.ts";

/**
 * How long the gateway waits for a service's answer to a call that names no timeout of its own:
 * the default of every transport below, so a route passes `timeoutMs` only when it needs another.
 */
export const CALL_TIMEOUT_MS = 10_000;

/**
 * A recording start waits longer: past the meeting service's own start timeout
 * (RECORDING_START_TIMEOUT_SECONDS, at most 60 s), so its clear 503 arrives rather than a timeout here.
 */
export const RECORDING_START_TIMEOUT_MS = 65_000;

/** A transport to one of our services with the gateway's call timeout. */
export const serviceTransport = (url: string) => internalTransport(url, { defaultTimeoutMs: CALL_TIMEOUT_MS });

/** The gateway's downstream clients: one HTTP/2 connection per service (Connect protocol), shared by all requests. */
export interface Clients {
  identity: Client<typeof IdentityService>;
  /** Which sites may frame an organization's meetings (the meeting page's frame-ancestors; no credential). */
  embedding: Client<typeof EmbeddingService>;
  meeting: Client<typeof MeetingService>;
  meetingPage: Client<typeof MeetingPageService>;
  meetingRoom: Client<typeof MeetingRoomService>;
  recording: Client<typeof RecordingService>;
  /** Recording files for access-link holders (no credential). */
  recordingFile: Client<typeof RecordingFileService>;
  transcript: Client<typeof TranscriptService>;
  /** Transcripts for access-link holders (no credential). */
  transcriptFile: Client<typeof TranscriptFileService>;
  webhook: Client<typeof WebhookService>;
  /** Health clients by downstream name, for /readyz. */
  health: Record<string, Client<typeof Health>>;
}

export function createClients(config: Config): Clients {
  const transports = {
    identity: serviceTransport(config.IDENTITY_URL),
    meeting: serviceTransport(config.MEETING_URL),
    webhook: serviceTransport(config.WEBHOOK_URL),
  };
  return {
    identity: createClient(IdentityService, transports.identity),
    embedding: createClient(EmbeddingService, transports.identity),
    meeting: createClient(MeetingService, transports.meeting),
    meetingPage: createClient(MeetingPageService, transports.meeting),
    meetingRoom: createClient(MeetingRoomService, transports.meeting),
    recording: createClient(RecordingService, transports.meeting),
    recordingFile: createClient(RecordingFileService, transports.meeting),
    transcript: createClient(TranscriptService, transports.meeting),
    transcriptFile: createClient(TranscriptFileService, transports.meeting),
    webhook: createClient(WebhookService, transports.webhook),
    health: Object.fromEntries(Object.entries(transports).map(([name, transport]) => [name, createClient(Health, transport)])),
  };
}
