import {
  errorResponse,
  forbiddenResponse as forbidden,
  jsonResponse,
  tooManyRequestsResponse,
  unauthorizedResponse as unauthorized,
  type OpenApiFragment,
} from "./document.ts";

const tooManyRequests = tooManyRequestsResponse();

const meetingIdParameter = {
  name: "id",
  in: "path",
  required: true,
  description: "The meeting id (22 URL-safe characters, as returned at creation).",
  schema: { type: "string" },
};

const meetingResponse = (description: string) => jsonResponse("Meeting", description);

/** POST /meeting (spec 4.2) and the extensions GET /meeting/{id}, POST /meeting/{id}/end (DESIGN.md section 3). */
export const meetingOpenApi: OpenApiFragment = {
  paths: {
    "/meeting": {
      post: {
        operationId: "createMeeting",
        summary: "Create a meeting",
        description:
          "Creates a meeting and returns its join payload. The meeting is `scheduled` until the first person enters its room at the join URL (then `live`, and `meeting.started` is emitted), whatever its `start`. The `url` is the join page; anyone holding it can open the page, so the id is long and random and the password is empty. Attendees become the meeting's participants (deduplicated case-insensitively). Unknown fields are ignored. Every invalid field is named in one 400 message.",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.create"] }],
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/CreateMeetingRequest" } } },
        },
        responses: {
          "200": {
            description: "The meeting was created.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/MeetingJoinPayload" } } },
          },
          "400": errorResponse(
            "Invalid request body: not a JSON object, wrong JSON types, empty or over-long title, a start without offset or an impossible date, an invalid e-mail address, more than 100 attendees. The message names each invalid field.",
          ),
          "401": unauthorized,
          "403": forbidden("meeting.create"),
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests,
          "500": errorResponse('The meeting could not be stored: `{"error": "Failed to create meeting"}`, without internal detail.'),
          "503": errorResponse("A service is temporarily unavailable."),
        },
      },
    },
    "/meeting/{id}": {
      get: {
        operationId: "getMeeting",
        summary: "Get a meeting",
        description: "The stored meeting of the caller's organization, with its status, start, end and attendees. A meeting of another organization is reported as not found.",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.read"] }],
        parameters: [meetingIdParameter],
        responses: {
          "200": meetingResponse("The meeting."),
          "401": unauthorized,
          "403": forbidden("meeting.read"),
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
        parameters: [meetingIdParameter],
        responses: {
          "200": meetingResponse("The meeting, now ended."),
          "400": errorResponse("A request body was sent that is not JSON, or is malformed JSON (no body is expected)."),
          "401": unauthorized,
          "403": forbidden("meeting.update"),
          "404": errorResponse('No such meeting in the caller\'s organization: `{"error": "Meeting not found"}`.'),
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
        parameters: [meetingIdParameter],
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/JoinMeetingRequest" } } },
        },
        responses: {
          "200": jsonResponse("JoinGrant", "The grant: connect to `serverUrl` with `token`."),
          "400": errorResponse("Not a JSON object, `displayName` missing or not a string, empty after trimming, over 64 characters, or containing control characters or line breaks."),
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
  schemas: {
    JoinMeetingRequest: {
      type: "object",
      required: ["displayName"],
      properties: {
        displayName: { type: "string", minLength: 1, maxLength: 64, description: "Shown to everyone in the room. Trimmed; 1-64 characters; one line, no control characters." },
      },
    },
    JoinGrant: {
      type: "object",
      required: ["participantId", "token", "serverUrl", "expiresAt", "meeting"],
      properties: {
        participantId: { type: "string", description: "The participant's identity in the room (new for every grant); webhook events name participants by it." },
        token: { type: "string", description: "LiveKit access token (JWT) for the room named after the meeting id." },
        serverUrl: { type: "string", format: "uri", description: "The media server's WebSocket URL (LIVEKIT_PUBLIC_URL)." },
        expiresAt: { type: "string", format: "date-time", description: "Connect before this time." },
        meeting: {
          type: "object",
          required: ["id", "title", "status"],
          properties: { id: { type: "string" }, title: { type: "string" }, status: { type: "string", enum: ["scheduled", "live", "ended"] } },
        },
      },
    },
    CreateMeetingRequest: {
      type: "object",
      required: ["title"],
      properties: {
        title: { type: "string", minLength: 1, maxLength: 255, description: "Trimmed; must not be empty after trimming; at most 255 characters." },
        start: {
          type: ["string", "null"],
          format: "date-time",
          description: "ISO 8601 date-time with a UTC offset (`Z` or `±hh:mm`), for example `2025-06-01T09:00:00.000Z`. Null or absent: no start time.",
          examples: ["2025-06-01T09:00:00.000Z"],
        },
        attendees: {
          description: "One e-mail address, or a list of at most 100; duplicates (ignoring case) are dropped. Null or absent: none.",
          oneOf: [
            { type: "string", format: "email" },
            { type: "array", maxItems: 100, items: { type: "string", format: "email" } },
            { type: "null" },
          ],
        },
      },
    },
    MeetingJoinPayload: {
      type: "object",
      required: ["type", "id", "password", "url"],
      properties: {
        type: { type: "string", const: "svc_video" },
        id: { type: "string", description: "Meeting id: 22 URL-safe characters carrying 128 random bits." },
        password: { type: "string", const: "", description: "Always empty: the join URL itself is the capability." },
        url: { type: "string", format: "uri", description: "The join page, `{PUBLIC_URL}/meeting/<id>`." },
      },
    },
    Meeting: {
      type: "object",
      required: ["type", "id", "password", "url", "title", "start", "status", "attendees", "createdAt", "endedAt"],
      properties: {
        type: { type: "string", const: "svc_video" },
        id: { type: "string" },
        password: { type: "string", const: "" },
        url: { type: "string", format: "uri" },
        title: { type: "string" },
        start: { type: ["string", "null"], format: "date-time" },
        status: {
          type: "string",
          enum: ["scheduled", "live", "ended"],
          description:
            "`scheduled` until the first person enters the meeting room; `live` from then on (also while the room is briefly empty); `ended` once the room stayed empty for the grace period (MEETING_EMPTY_GRACE_SECONDS, default 60 s) or the meeting was ended through the API.",
        },
        attendees: { type: "array", items: { type: "string", format: "email" } },
        createdAt: { type: "string", format: "date-time" },
        endedAt: { type: ["string", "null"], format: "date-time" },
      },
    },
  },
};
