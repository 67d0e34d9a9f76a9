import type { Pool } from "@svc/platform/db";
import type { TranscriptStore } from "../transcript-store.ts";
import { getMeetingOfOrg } from "./meetings.ts";
import { setTranscriptionDefault, transcriptionDefaultOf } from "./organization-settings.ts";
import { deleteTranscriptRow, segmentsOf, transcriptById, transcriptOfOrg, transcriptsOfMeeting } from "./transcripts.ts";

/** TranscriptStore on the service's Postgres schema. */
export function pgTranscriptStore(pool: Pool): TranscriptStore {
  return {
    meetingOfOrg: (orgId, meetingId) => getMeetingOfOrg(pool, orgId, meetingId),
    transcriptOfOrg: (orgId, transcriptId) => transcriptOfOrg(pool, orgId, transcriptId),
    transcriptById: (transcriptId) => transcriptById(pool, transcriptId),
    transcriptsOfMeeting: (meetingId) => transcriptsOfMeeting(pool, meetingId),
    segmentsOf: (transcriptId) => segmentsOf(pool, transcriptId),
    deleteTranscript: (transcriptId) => deleteTranscriptRow(pool, transcriptId),
    transcriptionDefaultOf: (orgId) => transcriptionDefaultOf(pool, orgId),
    setTranscriptionDefault: (orgId, mode) => setTranscriptionDefault(pool, orgId, mode),
  };
}
