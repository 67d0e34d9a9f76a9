import type { StoredMeeting, TranscriptionMode } from "./db/meetings.ts";
import type { StoredSegment, StoredTranscript } from "./db/transcripts.ts";

/**
 * What the transcript handlers read and change: meetings and transcripts of one organization
 * (another organization's do not exist for the caller), by id alone for an access link's holder
 * (the signed link is the permission), and the organization's transcription default.
 * Postgres: db/pg-transcript-store.ts.
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
