import type { TranscriptionFailureCode } from "@svc/platform/contract";
import type { StoredMeeting, TranscriptionMode } from "./meeting-store.ts";

export type TranscriptStatus = "processing" | "ready" | "failed";
/** Why a transcript failed (docs/transcription.md, "Failures"; the words: @svc/platform/contract). */
export type { TranscriptionFailureCode };

/** Someone whose own audio a transcript is made from (one transcription job each). */
export interface TranscriptSpeaker {
  displayName: string;
  /** For an invited host or attendee who entered with their personal link. */
  email: string | null;
}

export interface StoredTranscript {
  id: string;
  meetingId: string;
  orgId: string;
  status: TranscriptStatus;
  language: string;
  errorCode: TranscriptionFailureCode | null;
  createdAt: Date;
  completedAt: Date | null;
  /** Where the last speech ends on the transcript's time line; null until ready or when nothing was said. */
  durationMs: number | null;
  /** The recording whose run the speakers' audio was taken beside, if any. */
  recordingId: string | null;
  /** In the order of their jobs (a segment's `speakerIndex` points here). */
  speakers: TranscriptSpeaker[];
}

export interface StoredSegment {
  speakerIndex: number;
  startMs: number;
  endMs: number;
  text: string;
}

/**
 * What the transcript handlers read and change: meetings and transcripts of one organization
 * (another organization's do not exist for the caller), by id alone for an access link's holder
 * (the signed link is the permission), and the organization's transcription default.
 * Postgres: db/pg-transcript-store.ts. The transcript records above are this store's: handlers and db/ import them from here.
 */
export interface TranscriptStore {
  meetingOfOrg(orgId: string, meetingId: string): Promise<StoredMeeting | undefined>;
  transcriptOfOrg(orgId: string, transcriptId: string): Promise<StoredTranscript | undefined>;
  transcriptById(transcriptId: string): Promise<StoredTranscript | undefined>;
  /** Newest first. */
  transcriptsOfMeeting(meetingId: string): Promise<StoredTranscript[]>;
  /** In time order. */
  segmentsOf(transcriptId: string): Promise<StoredSegment[]>;
  deleteTranscript(transcriptId: string): Promise<boolean>;
  transcriptionDefaultOf(orgId: string): Promise<TranscriptionMode>;
  setTranscriptionDefault(orgId: string, mode: TranscriptionMode): Promise<TranscriptionMode>;
}
