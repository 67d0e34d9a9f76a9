import { enumWords } from "@svc/platform/contract";
import { MeetingStatusSchema, ParticipantRoleSchema, RecordingModeSchema, ScreenSharePolicySchema } from "@svc/proto/svc/meeting/v1/meeting_pb";
import { RecordingStatusSchema } from "@svc/proto/svc/meeting/v1/recording_pb";
import type { MeetingStatus, ParticipantRole, RecordingMode, ScreenSharePolicy } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { RecordingStatus } from "@svc/proto/svc/meeting/v1/recording_pb";
import type { LinkRole } from "../room-store.ts";
import type { MeetingStatus as StoredStatus, RecordingMode as StoredRecordingMode, ScreenShare as StoredScreenShare } from "../meeting-store.ts";
import type { RecordingStatus as StoredRecordingStatus } from "../recording-store.ts";

// The words this service stores for the protobuf enums it answers, derived from their descriptors
// (enumWords): the .proto is the one list, and the gateway derives the same words for the REST API.
// enum-words.test.ts checks that each is exactly the stored type's words.

export const meetingStatusWords = enumWords<MeetingStatus, StoredStatus>(MeetingStatusSchema);
export const participantRoleWords = enumWords<ParticipantRole, LinkRole>(ParticipantRoleSchema);
export const recordingModeWords = enumWords<RecordingMode, StoredRecordingMode>(RecordingModeSchema);
export const screenSharePolicyWords = enumWords<ScreenSharePolicy, StoredScreenShare>(ScreenSharePolicySchema);
export const recordingStatusWords = enumWords<RecordingStatus, StoredRecordingStatus>(RecordingStatusSchema);
