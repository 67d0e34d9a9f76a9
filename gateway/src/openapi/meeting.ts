import { z } from "zod";
import { IdempotencyKeyHeader } from "../contract/common.ts";
import {
  CreateMeetingRequest,
  JoinGrant,
  JoinMeetingRequest,
  ListMeetingsQuery,
  Meeting,
  MeetingJoinPayload,
  MeetingList,
  MeetingPath,
  UpdateMeetingRequest,
} from "../contract/meeting.ts";
import {
  errorResponse,
  forbiddenResponse as forbidden,
  idempotencyResponses,
  jsonRequestBody,
  jsonResponse,
  tooManyRequestsResponse,
  unauthorizedResponse as unauthorized,
  type OpenApiFragment,
} from "./document.ts";

const tooManyRequests = tooManyRequestsResponse();
const meetingResponse = (description: string) => jsonResponse(Meeting, description);
const idempotencyKey = { header: z.object({ "Idempotency-Key": IdempotencyKeyHeader }) };

/** POST /meeting (spec 4.2) and the extensions: list, get, update, cancel, end and join (docs/decisions/0008-rest-contract-from-zod-schemas.md). */
export const meetingOpenApi: OpenApiFragment = {
  paths: {
    "/meeting": {
      get: {
        operationId: "listMeetings",
        summary: "List meetings",
        description:
          "The caller's organization's meetings, newest first (by creation), in pages. Filters combine: `status`, and a range of planned start (`startFrom` inclusive, `startBefore` exclusive; meetings without a start are left out when either is given). Pass `nextPageToken` back as `pageToken` for the next page; it is null on the last page.",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.read"] }],
        requestParams: { query: ListMeetingsQuery },
        responses: {
          "200": jsonResponse(MeetingList, "A page of meetings."),
          "400": errorResponse("A filter or page parameter is invalid; the message names it."),
          "401": unauthorized,
          "403": forbidden("meeting.read"),
          "429": tooManyRequests,
          "500": errorResponse("Internal server error."),
          "503": errorResponse("A service is temporarily unavailable."),
        },
      },
      post: {
        operationId: "createMeeting",
        summary: "Create a meeting",
        description:
          "Creates a meeting and returns its join payload. The meeting is `scheduled` until the first person enters its room at the join URL (then `live`, and `meeting.started` is emitted), whatever its `start`. The `url` is the join page; anyone holding it can open the page, so the id is long and random and the password is empty. Attendees become the meeting's participants (deduplicated case-insensitively). Unknown fields are ignored. Every invalid field is named in one 400 message.",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.create"] }],
        requestParams: idempotencyKey,
        requestBody: jsonRequestBody(CreateMeetingRequest),
        responses: {
          "200": jsonResponse(MeetingJoinPayload, "The meeting was created."),
          "400": errorResponse(
            "Invalid request body: not a JSON object, wrong JSON types, empty or over-long title, a start without offset or an impossible date, an invalid e-mail address, more than 100 attendees. The message names each invalid field.",
          ),
          "401": unauthorized,
          "403": forbidden("meeting.create"),
          ...idempotencyResponses,
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests,
          "500": errorResponse('The meeting could not be stored: `{"error": "Failed to create meeting"}`, without internal detail.'),
          "503": errorResponse("A service is temporarily unavailable."),
        },
      },
    },
    "/meeting/{id}": {
      patch: {
        operationId: "updateMeeting",
        summary: "Update (reschedule) a meeting",
        description:
          "Changes the fields present in the body, with the creation rules: `title`, `start`, `end`, `duration`, `attendees` (the list replaces the old one). `null` clears `start` or `end`; clearing the start clears the end. Moving the start of a meeting with a planned end keeps its length unless `end` or `duration` is given too. Answers the stored meeting and emits `meeting.updated` naming the changed fields (nothing when nothing changed). The join URL stays the same. Unknown fields are ignored.",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.update"] }],
        requestParams: { path: MeetingPath },
        requestBody: jsonRequestBody(UpdateMeetingRequest),
        responses: {
          "200": meetingResponse("The meeting, as stored now."),
          "400": errorResponse("No field to change, or a field breaks a rule; the message names each."),
          "401": unauthorized,
          "403": forbidden("meeting.update"),
          "404": errorResponse('No such meeting in the caller\'s organization: `{"error": "Meeting not found"}`.'),
          "409": errorResponse('The meeting has ended or was cancelled: `{"error": "Meeting has ended and cannot be changed"}`.'),
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests,
          "500": errorResponse("Internal server error."),
          "503": errorResponse("A service is temporarily unavailable."),
        },
      },
      delete: {
        operationId: "cancelMeeting",
        summary: "Cancel a meeting",
        description:
          "Cancels a meeting that has not ended: its status becomes `cancelled`, anyone in its room is disconnected (`participant.left` each), joins are refused (410), the join page says it was cancelled, and `meeting.cancelled` is emitted; `meeting.ended` never follows. Idempotent: cancelling a cancelled meeting answers 200 with it unchanged and emits nothing. Answers 200 with the meeting (not 204), so a scheduling tool sees the final state. Afterwards `GET /meeting/{id}` answers 410 Gone with the cancelled meeting as its body; the list still shows it (`status=cancelled`).",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.delete"] }],
        requestParams: { path: MeetingPath },
        responses: {
          "200": meetingResponse("The meeting, now cancelled."),
          "401": unauthorized,
          "403": forbidden("meeting.delete"),
          "404": errorResponse('No such meeting in the caller\'s organization: `{"error": "Meeting not found"}`.'),
          "409": errorResponse('The meeting has already ended: `{"error": "Meeting has ended and cannot be cancelled"}`.'),
          "429": tooManyRequests,
          "500": errorResponse("Internal server error."),
          "503": errorResponse("A service is temporarily unavailable."),
        },
      },
      get: {
        operationId: "getMeeting",
        summary: "Get a meeting",
        description:
          "The stored meeting of the caller's organization, with its status, start, end and attendees. A meeting of another organization is reported as not found. A cancelled meeting (`DELETE /meeting/{id}`) is gone: 410 Gone, with the cancelled meeting as the body, so a client learns both that it no longer exists and what it was.",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.read"] }],
        requestParams: { path: MeetingPath },
        responses: {
          "200": meetingResponse("The meeting."),
          "401": unauthorized,
          "403": forbidden("meeting.read"),
          "410": meetingResponse("The meeting was cancelled: the body is the cancelled meeting (`status` `cancelled`, `cancelledAt` set)."),
          "404": errorResponse('No such meeting in the caller\'s organization: `{"error": "Meeting not found"}`.'),
          "429": tooManyRequests,
          "500": errorResponse("Internal server error."),
          "503": errorResponse("A service is temporarily unavailable."),
        },
      },
    },
    "/meeting/{id}/end": {
      post: {
        operationId: "endMeeting",
        summary: "End a meeting",
        description:
          "Ends a scheduled or live meeting: everyone in its room is disconnected (`participant.left` for each), further joins are refused (410), and `meeting.ended` is emitted (reason `ended_by_api`; delivered to webhook subscriptions, at least once). Idempotent: ending an ended meeting answers 200 with the meeting unchanged and emits nothing. No request body.",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.update"] }],
        requestParams: { path: MeetingPath },
        responses: {
          "200": meetingResponse("The meeting, now ended."),
          "400": errorResponse("A request body was sent that is not JSON, or is malformed JSON (no body is expected)."),
          "401": unauthorized,
          "403": forbidden("meeting.update"),
          "404": errorResponse('No such meeting in the caller\'s organization: `{"error": "Meeting not found"}`.'),
          "409": errorResponse('The meeting was cancelled: `{"error": "Meeting has been cancelled and cannot be ended"}`.'),
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests,
          "500": errorResponse("Internal server error."),
          "503": errorResponse("A service is temporarily unavailable."),
        },
      },
    },
    "/meeting/{id}/join": {
      post: {
        operationId: "joinMeeting",
        summary: "Get a join grant for the meeting room",
        description:
          "What the join page calls when a person clicks Join: a short-lived token for the media server (LiveKit) room of the meeting, for a new participant identity with the given display name. Public like the join page: no Authorization header is needed, because holding the meeting's unguessable id is the permission. The token must be used to connect before `expiresAt` (JOIN_TOKEN_TTL_SECONDS, default 300 s). Refused for unknown (404), ended (410) and full (409) meetings; limited per client address (JOIN_GRANTS_PER_MINUTE, default 30).",
        tags: ["Meeting rooms"],
        security: [],
        requestParams: { path: MeetingPath },
        requestBody: jsonRequestBody(JoinMeetingRequest),
        responses: {
          "200": jsonResponse(JoinGrant, "The grant: connect to `serverUrl` with `token`."),
          "400": errorResponse(
            "Not a JSON object, `displayName` missing or not a string, empty after trimming, over 64 characters, or containing control characters or line breaks.",
          ),
          "404": errorResponse('No such meeting: `{"error": "Meeting not found"}`.'),
          "409": errorResponse('The meeting room is full: `{"error": "This meeting is full (100 participants)"}`.'),
          "410": errorResponse('The meeting has ended: `{"error": "This meeting has ended"}`.'),
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequestsResponse("Too many join grants for this client address; `Retry-After` says when to try again."),
          "500": errorResponse("Internal server error."),
          "503": errorResponse("A service is temporarily unavailable."),
        },
      },
    },
  },
};
