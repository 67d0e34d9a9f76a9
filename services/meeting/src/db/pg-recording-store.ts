import type { Pool } from "@svc/platform/db";
import type { RecordingStore } from "../recording-store.ts";
import { getMeetingOfOrg } from "./meetings.ts";
import { recordingById, recordingOfOrg, recordingsOfMeeting } from "./recordings.ts";

/** RecordingStore on the service's Postgres schema. */
export function pgRecordingStore(pool: Pool): RecordingStore {
  return {
    meetingOfOrg: (orgId, meetingId) => getMeetingOfOrg(pool, orgId, meetingId),
    recordingOfOrg: (orgId, recordingId) => recordingOfOrg(pool, orgId, recordingId),
    recordingById: (recordingId) => recordingById(pool, recordingId),
    recordingsOfMeeting: (meetingId) => recordingsOfMeeting(pool, meetingId),
  };
}
