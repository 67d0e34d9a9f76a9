/**
 * Why a recording failed, as tenants read it (the API's `errorCode` and `error`, `recording.failed`):
 * a stable code and our own words for each. The recorder's own text (LiveKit Egress's error, which
 * can name our storage, its paths and its credentials' failures) never reaches a tenant: the
 * meeting service writes it to its log only. One entry per way a recording can end failed
 * (services/meeting/src/recording/recording-outcomes.ts and recording-watchdog.ts).
 */
export const recordingFailureMessages = {
  recorder_aborted: "The recorder gave up on the recording before it could start recording the room",
  recorder_failed: "The recorder failed while recording; the file could not be finished",
  recorder_lost: "The recorder stopped unexpectedly: it left the meeting room without finishing the file",
  recorder_unavailable: "The recorder could not be reached to stop the recording",
  storage_failed: "The recording's file could not be written to the recordings storage",
  nothing_recorded: "The recorder finished without a file: nothing was recorded",
  finish_timeout: "The recorder did not finish the file in time after the recording was stopped",
} as const;

export type RecordingFailureCode = keyof typeof recordingFailureMessages;

export const recordingFailureCodes = Object.keys(recordingFailureMessages) as [RecordingFailureCode, ...RecordingFailureCode[]];

export const isRecordingFailureCode = (value: string): value is RecordingFailureCode => Object.hasOwn(recordingFailureMessages, value);
