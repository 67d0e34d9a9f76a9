import { z } from "zod";
import { AccessLinkQuery } from "../contract/recording.ts";
import { MeetingPath } from "../contract/meeting.ts";
import {
  TranscriptAccessLink,
  TranscriptDownloadPath,
  TranscriptionSettings,
  TranscriptList,
  TranscriptPath,
  TranscriptWithSegments,
  UpdateTranscriptionSettingsRequest,
} from "../contract/transcript.ts";
import {
  errorResponse,
  forbiddenResponse as forbidden,
  jsonRequestBody,
  jsonResponse,
  meetingNotFoundResponse,
  cancelledMeetingResponse,
  serverErrorResponses as serverErrors,
  tooManyRequestsResponse,
  unauthorizedResponse as unauthorized,
  type OpenApiFragment,
} from "./document.ts";

const tooManyRequests = tooManyRequestsResponse();
const noTranscript = errorResponse('No such transcript in the caller\'s organization: `{"error": "Transcript not found"}`.');
const adminOnly = " Admins of the organization only (a member's credential gets 403).";

const download = (format: "vtt" | "json") => ({
  get: {
    operationId: format === "vtt" ? "downloadTranscriptWebVtt" : "downloadTranscriptJson",
    summary: `Read a transcript as ${format === "vtt" ? "WebVTT" : "JSON"} (access link)`,
    description:
      (format === "vtt"
        ? "The transcript as a WebVTT file: one cue per segment, in time order, its speaker as a voice tag (`<v Ada Lovelace>text`)."
        : "The transcript as JSON, the same document GET /transcripts/{transcriptId} answers.") +
      " No Authorization header: the signed, expiring token in the path is the permission.",
    tags: ["Transcripts"],
    security: [],
    requestParams: { path: TranscriptDownloadPath },
    responses: {
      "200":
        format === "vtt"
          ? { description: "The WebVTT file.", content: { "text/vtt": { schema: z.string() } } }
          : jsonResponse(TranscriptWithSegments, "The transcript."),
      "403": errorResponse('The link is not valid, or has expired: `{"error": "This download link has expired"}`.'),
      "404": errorResponse("The transcript was deleted."),
      "429": tooManyRequests,
      ...serverErrors,
    },
  },
});

/** Transcripts of meetings (docs/transcription.md). */
export const transcriptOpenApi: OpenApiFragment = {
  paths: {
    "/meeting/{id}/transcripts": {
      get: {
        operationId: "listTranscripts",
        summary: "List a meeting's transcripts",
        description:
          "Every transcript of the meeting, newest first, in every status, without their segments. A meeting whose `transcription` setting is `on` gets one per recording.",
        tags: ["Transcripts"],
        security: [{ ApiKey: [] }, { OAuth2: ["transcript.read"] }],
        requestParams: { path: MeetingPath },
        responses: {
          "200": jsonResponse(TranscriptList, "The transcripts."),
          "401": unauthorized,
          "403": forbidden("transcript.read"),
          "404": meetingNotFoundResponse,
          "410": cancelledMeetingResponse(TranscriptList, "the transcripts"),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/transcripts/{transcriptId}": {
      get: {
        operationId: "getTranscript",
        summary: "Get a transcript: who said what, when",
        description:
          "Its status, language, duration and speakers and, once `ready`, its segments in time order, each naming its speaker and its start and end in seconds of the meeting's time line.",
        tags: ["Transcripts"],
        security: [{ ApiKey: [] }, { OAuth2: ["transcript.read"] }],
        requestParams: { path: TranscriptPath },
        responses: {
          "200": jsonResponse(TranscriptWithSegments, "The transcript."),
          "401": unauthorized,
          "403": forbidden("transcript.read"),
          "404": noTranscript,
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
      delete: {
        operationId: "deleteTranscript",
        summary: "Delete a transcript",
        description:
          "Deletes the transcript and its text for good; access links to it stop working (404). One still `processing` stops: nothing more is stored. Transcripts are also deleted RECORDING_RETENTION_DAYS (default 30) after they completed, as recordings are." +
          adminOnly,
        tags: ["Transcripts"],
        security: [{ ApiKey: [] }, { OAuth2: ["transcript.manage"] }],
        requestParams: { path: TranscriptPath },
        responses: {
          "200": jsonResponse(z.object({ transcriptId: z.string(), deleted: z.literal(true) }), "Deleted."),
          "401": unauthorized,
          "403": forbidden("transcript.manage"),
          "404": noTranscript,
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/transcripts/{transcriptId}/access-link": {
      get: {
        operationId: "getTranscriptAccessLink",
        summary: "Links to a transcript as WebVTT and JSON",
        description:
          "Signed URLs of the transcript that need no API key, valid until `expiresAt` (`expiresInSeconds`, default 1 hour, at most 7 days): what a scheduler hands to its user. Anyone holding one can read the transcript until then, so share it like the transcript itself. 409 while the transcript is not `ready`.",
        tags: ["Transcripts"],
        security: [{ ApiKey: [] }, { OAuth2: ["transcript.read"] }],
        requestParams: { path: TranscriptPath, query: AccessLinkQuery },
        responses: {
          "200": jsonResponse(TranscriptAccessLink, "The links."),
          "400": errorResponse("`expiresInSeconds` is out of range."),
          "401": unauthorized,
          "403": forbidden("transcript.read"),
          "404": noTranscript,
          "409": errorResponse("The transcript is not ready (still processing, or failed)."),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/transcript-downloads/{token}/transcript.vtt": download("vtt"),
    "/transcript-downloads/{token}/transcript.json": download("json"),
    "/transcription-settings": {
      get: {
        operationId: "getTranscriptionSettings",
        summary: "The organization's transcription default",
        description: "Whether new meetings of the organization are transcribed unless they say otherwise (`off` until an admin changes it).",
        tags: ["Transcripts"],
        security: [{ ApiKey: [] }, { OAuth2: ["transcript.read"] }],
        responses: {
          "200": jsonResponse(TranscriptionSettings, "The settings."),
          "401": unauthorized,
          "403": forbidden("transcript.read"),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
      put: {
        operationId: "updateTranscriptionSettings",
        summary: "Set the organization's transcription default",
        description: "Meetings created from now on without their own `transcription` setting take it; existing meetings keep theirs." + adminOnly,
        tags: ["Transcripts"],
        security: [{ ApiKey: [] }, { OAuth2: ["transcript.manage"] }],
        requestBody: jsonRequestBody(UpdateTranscriptionSettingsRequest),
        responses: {
          "200": jsonResponse(TranscriptionSettings, "The settings, as stored."),
          "400": errorResponse("`defaultTranscription` is missing or not off or on; nothing is changed."),
          "401": unauthorized,
          "403": forbidden("transcript.manage"),
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
  },
};
