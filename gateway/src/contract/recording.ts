import { z } from "zod";
import { recordingFailureCodes, recordingFailureMessages } from "@svc/platform/contract";
import { dateTime, nullableDateTime, uuid } from "./common.ts";

// ---- Requests -------------------------------------------------------------------------------

export const RecordingLayoutName = z.enum(["grid", "audio"], { error: "layout must be grid or audio" }).meta({
  description:
    "`grid`: the whole room as the people in it see it (H.264 720p video and AAC audio, MP4). `audio`: the room's audio only (AAC in MP4), much cheaper to record.",
});

export const StartRecordingRequest = z
  .object({ layout: RecordingLayoutName.optional().meta({ description: "Default `grid`." }) })
  .meta({ id: "StartRecordingRequest", examples: [{ layout: "grid" }, { layout: "audio" }] });

export const RecordingPath = z.object({ recordingId: z.string().meta({ description: "The recording id (a UUID), as `id` in a Recording." }) });

const linkSecondsMessage = "expiresInSeconds must be a whole number of seconds from 1 to 604800";
export const AccessLinkQuery = z.object({
  expiresInSeconds: z.coerce
    .number({ error: linkSecondsMessage })
    .int(linkSecondsMessage)
    .min(1, linkSecondsMessage)
    .max(604_800, linkSecondsMessage)
    .optional()
    .meta({
      description: "How long the link works: 1 s to 7 days. Default RECORDING_LINK_TTL_SECONDS (1 hour).",
      override: { type: "integer", minimum: 1, maximum: 604_800 },
    }),
});

export const DownloadPath = z.object({
  token: z.string().meta({ description: "The signed token of an access link (everything after `/recording-downloads/`)." }),
});

export const RangeHeader = z.object({
  Range: z
    .string()
    .optional()
    .meta({ description: "A byte range (`bytes=0-`, `bytes=1000-1999`, `bytes=-500`), as a browser's video element sends when it seeks: answered 206." }),
});

// ---- Responses ------------------------------------------------------------------------------

export const RecordingStatusName = z.enum(["recording", "processing", "ready", "failed"]).meta({
  description:
    "`recording` while the recorder records the room; `processing` once stopped, while it finishes the file; `ready` when the file can be downloaded; `failed` when the recorder failed or was lost (`error` says why).",
});

export const RecordingErrorCode = z.enum(recordingFailureCodes).meta({
  id: "RecordingErrorCode",
  description: `Why a recording failed, as a stable code (\`error\` says it in words; new codes may be added): ${recordingFailureCodes
    .map((code) => `\`${code}\`: ${recordingFailureMessages[code]}.`)
    .join(" ")}`,
});

export const Recording = z
  .object({
    id: uuid(),
    meetingId: z.string(),
    status: RecordingStatusName,
    layout: z.enum(["grid", "audio"]),
    startedAt: dateTime("When capture began, as the recorder reports it, once `capturing`; until then (the recorder starting), when the start was asked."),
    capturing: z.boolean().meta({
      description:
        'True once the recorder reports the run active, the room\'s media being written (the room\'s indicator says "Recording"); false while it starts ("Starting…", a few seconds for `grid`: it loads a page and joins the room first).',
    }),
    endedAt: nullableDateTime("When it stopped; null while recording."),
    durationSeconds: z.number().nullable().meta({ description: "The file's duration, once ready." }),
    sizeBytes: z.number().int().nullable().meta({ description: "The file's size, once ready." }),
    error: z.string().nullable().meta({ description: "Why it failed, in words (those of `errorCode`); null otherwise." }),
    errorCode: RecordingErrorCode.nullable(),
    startedBy: z.enum(["host", "api", "auto"]).meta({ description: "A host in the room, the API, or the meeting's `recording: auto` setting." }),
  })
  .meta({ id: "Recording" });

export const RecordingList = z.object({ recordings: z.array(Recording).meta({ description: "Newest first." }) }).meta({ id: "RecordingList" });

export const RecordingAccessLink = z
  .object({
    downloadLink: z.string().meta({
      format: "uri",
      description:
        "A signed URL of the file (MP4). It needs no API key: hand it to whoever should watch or download the recording. Served with `Range` support, so a browser's video element can seek.",
    }),
    expiresAt: dateTime("After this the link is refused (403)."),
  })
  .meta({ id: "RecordingAccessLink" });

export const RoomRecordingState = z
  .object({
    recording: z.boolean().meta({ description: "A recording of the meeting is in progress." }),
    capturing: z.boolean().meta({ description: "The recording in progress is capturing (the recorder reports it active); false while it starts." }),
    transcribed: z.boolean().meta({
      description:
        "The recording in progress is capturing and the meeting's `transcription` is `on`: each person's audio is being recorded for the meeting's transcript.",
    }),
    layout: z.enum(["grid", "audio"]).nullable(),
    mode: z.enum(["off", "manual", "auto"]).meta({ description: "The meeting's recording setting." }),
  })
  .meta({ id: "RoomRecordingState" });
