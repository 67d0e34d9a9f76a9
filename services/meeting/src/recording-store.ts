import type { StoredMeeting } from "./db/meetings.ts";
import type { StoredRecording } from "./db/recordings.ts";

/**
 * What the recording handlers read: meetings and recordings of one organization (another
 * organization's do not exist for the caller), and by id alone for an access link's holder (the
 * signed link is the permission). Postgres: db/pg-recording-store.ts.
 */
export interface RecordingStore {
  meetingOfOrg(orgId: string, meetingId: string): Promise<StoredMeeting | undefined>;
  recordingOfOrg(orgId: string, recordingId: string): Promise<StoredRecording | undefined>;
  recordingById(recordingId: string): Promise<StoredRecording | undefined>;
  /** Newest first. */
  recordingsOfMeeting(meetingId: string): Promise<StoredRecording[]>;
}
