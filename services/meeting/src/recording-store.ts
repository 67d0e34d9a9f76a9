import type { RecordingFailureCode } from "@svc/platform/contract";
import type { StoredMeeting } from "./meeting-store.ts";

export type RecordingLayout = "grid" | "audio";

export type RecordingStatus = "recording" | "processing" | "ready" | "failed";

export type RecordingStarter = "host" | "api" | "auto";

export type RecordingStorageKind = "filesystem" | "s3";

export interface StoredRecording {
  id: string;
  meetingId: string;
  orgId: string;
  egressId: string | null;
  layout: RecordingLayout;
  status: RecordingStatus;
  startedBy: RecordingStarter;
  storage: RecordingStorageKind;
  objectKey: string;
  /** When capture began once `capturing` (the recorder's report); until then, when the start was asked. */
  startedAt: Date;
  /** The recorder reports the run active: the room's media is being written. */
  capturing: boolean;
  endedAt: Date | null;
  durationMs: number | null;
  sizeBytes: number | null;
  /** Why it failed, in our words (recordingFailureMessages), and its stable code; null unless failed. */
  error: string | null;
  errorCode: RecordingFailureCode | null;
  missingSince: Date | null;
}

export type TrackStatus = "recording" | "ready" | "failed";

/** A speaker's own audio beside a recording (docs/transcription.md, "Speaker tracks"). */
export interface StoredTrack {
  id: string;
  recordingId: string;
  participantId: string;
  displayName: string;
  email: string | null;
  trackSid: string;
  egressId: string | null;
  storage: RecordingStorageKind;
  objectKey: string;
  status: TrackStatus;
  /** When the egress began writing; null until it reports so. */
  startedAt: Date | null;
  endedAt: Date | null;
}

/**
 * What the recording handlers read: meetings and recordings of one organization (another
 * organization's do not exist for the caller), and by id alone for an access link's holder (the
 * signed link is the permission). Postgres: db/pg-recording-store.ts. The recording's records above are this
 * store's: handlers and db/ import them from here.
 */
export interface RecordingStore {
  meetingOfOrg(orgId: string, meetingId: string): Promise<StoredMeeting | undefined>;
  recordingOfOrg(orgId: string, recordingId: string): Promise<StoredRecording | undefined>;
  recordingById(recordingId: string): Promise<StoredRecording | undefined>;
  /** Newest first. */
  recordingsOfMeeting(meetingId: string): Promise<StoredRecording[]>;
}
