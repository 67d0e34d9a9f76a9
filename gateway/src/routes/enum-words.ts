import type { z } from "zod";
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
import { DeliveryStatusSchema } from "@svc/proto/svc/webhook/v1/webhook_pb";
import type { MeetingStatus, ParticipantRole, RecordingMode, ScreenSharePolicy, TranscriptionMode } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { TranscriptStatus } from "@svc/proto/svc/meeting/v1/transcript_pb";
import type { RecordingStatus } from "@svc/proto/svc/meeting/v1/recording_pb";
import type { DeliveryStatus } from "@svc/proto/svc/webhook/v1/webhook_pb";
import type { MeetingStatusName } from "../contract/meeting.ts";
import type { DeliveryStatusName } from "../contract/webhook.ts";

// The REST words of the protobuf enums the gateway translates, derived from their descriptors
// (enumWords): the .proto is the one list, the meeting and webhook services derive the same words.
// enum-words.test.ts checks each against the REST contract's own enum.

export type RoleWord = "host" | "attendee" | "guest";

export const meetingStatusWords = enumWords<MeetingStatus, z.infer<typeof MeetingStatusName>>(MeetingStatusSchema);
export const participantRoleWords = enumWords<ParticipantRole, RoleWord>(ParticipantRoleSchema);
export const recordingModeWords = enumWords<RecordingMode, "off" | "manual" | "auto">(RecordingModeSchema);
export const screenSharePolicyWords = enumWords<ScreenSharePolicy, "everyone" | "hosts">(ScreenSharePolicySchema);
export const recordingStatusWords = enumWords<RecordingStatus, "recording" | "processing" | "ready" | "failed">(RecordingStatusSchema);
export const transcriptionModeWords = enumWords<TranscriptionMode, "off" | "on">(TranscriptionModeSchema);
export const transcriptStatusWords = enumWords<TranscriptStatus, "processing" | "ready" | "failed">(TranscriptStatusSchema);
export const deliveryStatusWords = enumWords<DeliveryStatus, z.infer<typeof DeliveryStatusName>>(DeliveryStatusSchema);

/** A participant's role; an unspecified one is a guest's (who came by the meeting's plain join URL). */
export const roleName = (role: ParticipantRole): RoleWord => participantRoleWords.wordOf(role) ?? "guest";
