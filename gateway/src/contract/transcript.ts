import { z } from "zod";
import { transcriptionFailureCodes, transcriptionFailureMessages } from "@svc/platform/contract";
import { dateTime, nullableDateTime, uuid } from "./common.ts";

// ---- Requests -------------------------------------------------------------------------------

export const TranscriptPath = z.object({ transcriptId: z.string().meta({ description: "The transcript id (a UUID), as `id` in a Transcript." }) });

export const TranscriptionModeName = z.enum(["off", "on"], { error: "defaultTranscription must be off or on" });

export const UpdateTranscriptionSettingsRequest = z
  .object({
    defaultTranscription: TranscriptionModeName.meta({
      description: "`on`: meetings created from now on without their own `transcription` setting are transcribed. Existing meetings keep theirs.",
    }),
  })
  .meta({ id: "UpdateTranscriptionSettingsRequest", examples: [{ defaultTranscription: "on" }] });

export const TranscriptDownloadPath = z.object({
  token: z.string().meta({ description: "The signed token of an access link (between `/transcript-downloads/` and `/transcript.vtt` or `.json`)." }),
});

// ---- Responses ------------------------------------------------------------------------------

export const TranscriptStatusName = z.enum(["processing", "ready", "failed"]).meta({
  description:
    "`processing` while its speakers' audio is being transcribed; `ready` when all of it is (the segments are complete); `failed` when a speaker's audio could not be transcribed (`errorCode` says why).",
});

export const TranscriptErrorCode = z.enum(transcriptionFailureCodes).meta({
  id: "TranscriptErrorCode",
  description: `Why a transcript failed, as a stable code (\`error\` says it in words; new codes may be added): ${transcriptionFailureCodes
    .map((code) => `\`${code}\`: ${transcriptionFailureMessages[code]}.`)
    .join(" ")}`,
});

export const TranscriptSpeaker = z
  .object({
    name: z.string().meta({ description: "The name they had in the meeting room." }),
    email: z
      .string()
      .nullable()
      .meta({ format: "email", description: "For an invited host or attendee who entered with their personal link; null otherwise." }),
  })
  .meta({ id: "TranscriptSpeaker" });

export const Transcript = z
  .object({
    id: uuid(),
    meetingId: z.string(),
    recordingId: z.string().nullable().meta({ format: "uuid", description: "The recording whose run the speakers' audio was taken beside; null when none." }),
    status: TranscriptStatusName,
    language: z.string().meta({ description: 'The spoken language, a BCP 47 tag (`"en"`).' }),
    createdAt: dateTime(),
    completedAt: nullableDateTime("When it became ready or failed; null while processing."),
    durationSeconds: z.number().nullable().meta({ description: "Where the last speech ends on the meeting's time line, in seconds; null until ready." }),
    speakers: z
      .array(TranscriptSpeaker)
      .meta({ description: "Whose audio it is made from, one entry per participant's audio track; `speakerIndex` of a segment points here." }),
    error: z.string().nullable().meta({ description: "Why it failed, in words (those of `errorCode`); null otherwise." }),
    errorCode: TranscriptErrorCode.nullable(),
  })
  .meta({ id: "Transcript" });

export const TranscriptSegment = z
  .object({
    speaker: z.string().meta({ description: "The speaker's name (`speakers[speakerIndex].name`)." }),
    speakerIndex: z.number().int().meta({ description: "Who said it: an index into the transcript's `speakers`." }),
    start: z.number().meta({ description: "Seconds from the start of the meeting's time line (its recording's start)." }),
    end: z.number(),
    text: z.string(),
  })
  .meta({ id: "TranscriptSegment" });

export const TranscriptWithSegments = Transcript.extend({
  segments: z.array(TranscriptSegment).meta({ description: "What was said, in time order across speakers; empty unless `ready`." }),
}).meta({ id: "TranscriptWithSegments" });

export const TranscriptList = z
  .object({ transcripts: z.array(Transcript).meta({ description: "Newest first, without their segments." }) })
  .meta({ id: "TranscriptList" });

export const TranscriptAccessLink = z
  .object({
    webvttLink: z.string().meta({
      format: "uri",
      description: "A signed URL of the transcript as WebVTT (`text/vtt`), each cue with its speaker as a voice tag (`<v Ada Lovelace>`). No API key needed.",
    }),
    jsonLink: z.string().meta({ format: "uri", description: "The same transcript as JSON (a TranscriptWithSegments). No API key needed." }),
    expiresAt: dateTime("After this both links are refused (403)."),
  })
  .meta({ id: "TranscriptAccessLink" });

export const TranscriptionSettings = z
  .object({
    defaultTranscription: z.enum(["off", "on"]).meta({ description: "The `transcription` setting of a new meeting that does not give its own." }),
  })
  .meta({ id: "TranscriptionSettings" });
