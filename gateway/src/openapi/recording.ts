import { z } from "zod";
import { MeetingPath } from "../contract/meeting.ts";
import {
  AccessLinkQuery,
  DownloadPath,
  RangeHeader,
  Recording,
  RecordingAccessLink,
  RecordingList,
  RecordingPath,
  RoomRecordingState,
  StartRecordingRequest,
} from "../contract/recording.ts";
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
import { roomOperation } from "./meeting.ts";

const tooManyRequests = tooManyRequestsResponse();
const noRecording = errorResponse('No such recording in the caller\'s organization: `{"error": "Recording not found"}`.');
const noCapacity = {
  ...errorResponse(
    "No recorder has capacity for another recording now (it refused, or did not answer within RECORDING_START_TIMEOUT_SECONDS, default 8 s): the message says so, and `Retry-After` says when to try again. A start never hangs.",
  ),
  headers: z.object({
    "Retry-After": z.string().meta({ description: "Seconds to wait (RECORDING_RETRY_AFTER_SECONDS, default 30).", override: { type: "integer" } }),
  }),
};
const startRefusals =
  "Recording is off for the meeting (`recording: off`), nobody is in its room yet (a recording needs the room open), it has ended or was cancelled, or it is being recorded already (one recording at a time).";

/** Recordings of meetings (docs/meeting-room.md, "Recording"). */
export const recordingOpenApi: OpenApiFragment = {
  paths: {
    "/meeting/{id}/recordings": {
      post: {
        operationId: "startRecording",
        summary: "Start recording a meeting",
        description: `Starts recording the meeting's room (LiveKit Egress): \`grid\` (default) records the room as its people see it, \`audio\` its audio only. The meeting's \`recording\` setting must be \`manual\` or \`auto\`, and someone must be in its room. Everyone in the room sees a recording indicator and hears that the recording started; the join page tells people before they join. Emits \`recording.started\`; when it is stopped (or the meeting ends) the file is finished and \`recording.ready\` follows, or \`recording.failed\`. 409: ${startRefusals}`,
        tags: ["Recordings"],
        security: [{ ApiKey: [] }, { OAuth2: ["recording.manage"] }],
        requestParams: { path: MeetingPath },
        requestBody: jsonRequestBody(StartRecordingRequest),
        responses: {
          "201": jsonResponse(Recording, "The recording, `recording`."),
          "400": errorResponse("`layout` is not grid or audio."),
          "401": unauthorized,
          "403": forbidden("recording.manage"),
          "404": meetingNotFoundResponse,
          "409": errorResponse(startRefusals),
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests,
          "500": errorResponse("Internal server error."),
          "503": noCapacity,
        },
      },
      get: {
        operationId: "listRecordings",
        summary: "List a meeting's recordings",
        description: "Every recording of the meeting, newest first, in every status.",
        tags: ["Recordings"],
        security: [{ ApiKey: [] }, { OAuth2: ["recording.read"] }],
        requestParams: { path: MeetingPath },
        responses: {
          "200": jsonResponse(RecordingList, "The recordings."),
          "401": unauthorized,
          "403": forbidden("recording.read"),
          "404": meetingNotFoundResponse,
          "410": cancelledMeetingResponse(RecordingList, "the recordings"),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/recordings/{recordingId}": {
      get: {
        operationId: "getRecording",
        summary: "Get a recording",
        description: "Its status (`recording`, `processing`, `ready`, `failed`), times, duration, size, layout and error.",
        tags: ["Recordings"],
        security: [{ ApiKey: [] }, { OAuth2: ["recording.read"] }],
        requestParams: { path: RecordingPath },
        responses: {
          "200": jsonResponse(Recording, "The recording."),
          "401": unauthorized,
          "403": forbidden("recording.read"),
          "404": noRecording,
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
      delete: {
        operationId: "deleteRecording",
        summary: "Delete a recording and its file",
        description:
          "Deletes the recording and its file for good; access links to it stop working (404). Admins of the organization only (a member's credential gets 403). A recording still `recording` or `processing` is refused (409): stop it and wait until it is ready or failed. Recordings are also deleted RECORDING_RETENTION_DAYS (default 30) after they ended.",
        tags: ["Recordings"],
        security: [{ ApiKey: [] }, { OAuth2: ["recording.manage"] }],
        requestParams: { path: RecordingPath },
        responses: {
          "200": jsonResponse(z.object({ recordingId: z.string(), deleted: z.literal(true) }), "Deleted."),
          "401": unauthorized,
          "403": forbidden("recording.manage"),
          "404": noRecording,
          "409": errorResponse("The recording is not finished yet."),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/recordings/{recordingId}/stop": {
      post: {
        operationId: "stopRecording",
        summary: "Stop a recording",
        description:
          "Stops a recording in progress: it becomes `processing` while the recorder finishes the file, then `ready` (`recording.ready`) or `failed`. Idempotent: a recording that is no longer recording is answered as it is.",
        tags: ["Recordings"],
        security: [{ ApiKey: [] }, { OAuth2: ["recording.manage"] }],
        requestParams: { path: RecordingPath },
        responses: {
          "200": jsonResponse(Recording, "The recording, `processing` (or as it was)."),
          "401": unauthorized,
          "403": forbidden("recording.manage"),
          "404": noRecording,
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/recordings/{recordingId}/access-link": {
      get: {
        operationId: "getRecordingAccessLink",
        summary: "A download link for a recording",
        description:
          "A signed URL of the recording's file that needs no API key, valid until `expiresAt` (`expiresInSeconds`, default 1 hour, at most 7 days): what a scheduler hands to its user. Anyone holding it can watch or download the file until then, so share it like the recording itself. The file is served with `Range` support (a video element can seek). 409 while the recording is not `ready`.",
        tags: ["Recordings"],
        security: [{ ApiKey: [] }, { OAuth2: ["recording.read"] }],
        requestParams: { path: RecordingPath, query: AccessLinkQuery },
        responses: {
          "200": jsonResponse(RecordingAccessLink, "The link."),
          "400": errorResponse("`expiresInSeconds` is out of range."),
          "401": unauthorized,
          "403": forbidden("recording.read"),
          "404": noRecording,
          "409": errorResponse("The recording is not ready (still recording or processing, or failed)."),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/recording-downloads/{token}": {
      get: {
        operationId: "downloadRecording",
        summary: "Download a recording's file (access link)",
        description:
          "The MP4 file an access link points to. No Authorization header: the signed, expiring token in the path is the permission. Supports `Range` (206 with `Content-Range`; 416 outside the file) and HEAD.",
        tags: ["Recordings"],
        security: [],
        requestParams: { path: DownloadPath, header: RangeHeader },
        responses: {
          "200": {
            description: "The whole file.",
            content: { "video/mp4": { schema: z.string().meta({ format: "binary" }) }, "audio/mp4": { schema: z.string().meta({ format: "binary" }) } },
          },
          "206": {
            description: "The asked range.",
            content: { "video/mp4": { schema: z.string().meta({ format: "binary" }) }, "audio/mp4": { schema: z.string().meta({ format: "binary" }) } },
          },
          "403": errorResponse('The link is not valid, or has expired: `{"error": "This download link has expired"}`.'),
          "404": errorResponse("The recording was deleted."),
          "416": errorResponse("The range is outside the file (`Content-Range: bytes */<size>`)."),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/meeting/{id}/room/recording": {
      get: roomOperation({
        operationId: "getRoomRecording",
        summary: "Whether the meeting is being recorded",
        description: "What the room page shows in its recording indicator when it opens (afterwards it hears changes as `svc.recording` data packets).",
        ok: jsonResponse(RoomRecordingState, "The recording state."),
      }),
      post: roomOperation({
        operationId: "startRoomRecording",
        summary: "Start recording (a host in the room)",
        description: `The host panel's Record control: the same start as POST /meeting/{id}/recordings (409: ${startRefusals}; 503 with Retry-After without recording capacity).`,
        body: StartRecordingRequest,
        ok: jsonResponse(z.object({ recordingId: z.string(), layout: z.enum(["grid", "audio"]) }), "Recording."),
        okStatus: "201",
        host: true,
        extra: { "409": errorResponse(startRefusals), "503": noCapacity },
      }),
    },
    "/meeting/{id}/room/recording/stop": {
      post: roomOperation({
        operationId: "stopRoomRecording",
        summary: "Stop the recording (a host in the room)",
        description: "Stops the meeting's recording in progress (404 when nothing is being recorded).",
        ok: jsonResponse(z.object({ recordingId: z.string(), stopped: z.literal(true) }), "Stopped: the file is being finished."),
        host: true,
        extra: { "404": errorResponse("No such meeting, or nothing is being recorded in it.") },
      }),
    },
  },
};
