import { enumWords } from "@svc/platform/contract";
import {
  MeetingStatusSchema,
  ParticipantRoleSchema,
  RecordingModeSchema,
  ScreenSharePolicySchema,
  TranscriptionModeSchema,
} from "@svc/proto/svc/meeting/v1/meeting_pb";
import { TranscriptStatusSchema } from "@svc/proto/svc/meeting/v1/transcript_pb";
import { RecordingStatusSchema } from "@svc/proto/svc/meeting/v1/recording_pb";
import type { MeetingStatus, ParticipantRole, RecordingMode, ScreenSharePolicy, TranscriptionMode } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { TranscriptStatus } from "@svc/proto/svc/meeting/v1/transcript_pb";
import type { RecordingStatus } from "@svc/proto/svc/meeting/v1/recording_pb";
import type { LinkRole } from "../room-store.ts";
import type {
  MeetingStatus as StoredStatus,
  RecordingMode as StoredRecordingMode,
  ScreenShare as StoredScreenShare,
  TranscriptionMode as StoredTranscriptionMode,
} from "../meeting-store.ts";
import type { RecordingStatus as StoredRecordingStatus } from "../recording-store.ts";
import type { TranscriptStatus as StoredTranscriptStatus } from "../transcript-store.ts";

// The words this service stores for the protobuf enums it answers, derived from their descriptors
// (enumWords): the .proto is the one list, and the gateway derives the same words for the REST API.
// enum-words.test.ts checks that each is exactly the stored type's words.

export const meetingStatusWords = enumWords<MeetingStatus, StoredStatus>(MeetingStatusSchema);
export const participantRoleWords = enumWords<ParticipantRole, LinkRole>(ParticipantRoleSchema);
export const recordingModeWords = enumWords<RecordingMode, StoredRecordingMode>(RecordingModeSchema);
export const screenSharePolicyWords = enumWords<ScreenSharePolicy, StoredScreenShare>(ScreenSharePolicySchema);
export const recordingStatusWords = enumWords<RecordingStatus, StoredRecordingStatus>(RecordingStatusSchema);
export const transcriptionModeWords = enumWords<TranscriptionMode, StoredTranscriptionMode>(TranscriptionModeSchema);
export const transcriptStatusWords = enumWords<TranscriptStatus, StoredTranscriptStatus>(TranscriptStatusSchema);
