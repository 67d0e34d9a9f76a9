/**
 * Why a transcript failed, as tenants read it (the API's `errorCode` and `error`,
 * `transcript.failed`): a stable code and our words for each (docs/transcription.md, "Failures").
 * The speech worker's own output stays in the meeting context's log.
 */
export const transcriptionFailureMessages = {
  audio_unreadable: "A speaker's audio could not be read: the file is missing or is not audio",
  model_refused: "The speech model's files failed their integrity check, so nothing was transcribed",
  transcriber_failed: "Transcribing a speaker's audio failed repeatedly",
} as const;

export type TranscriptionFailureCode = keyof typeof transcriptionFailureMessages;

export const transcriptionFailureCodes = Object.keys(transcriptionFailureMessages) as [TranscriptionFailureCode, ...TranscriptionFailureCode[]];

export const isTranscriptionFailureCode = (value: string): value is TranscriptionFailureCode => Object.hasOwn(transcriptionFailureMessages, value);
