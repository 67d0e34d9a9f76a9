import { z } from "zod";
import { meetingLimits } from "@svc/platform/contract";
import { IdempotencyKeyHeader } from "../contract/common.ts";
import { z as zod } from "zod";
import {
  Attendance,
  Usage,
  UsageQuery,
  ChatMessage,
  ChatMessageRequest,
  ChatMessages,
  CreateJoinLinkRequest,
  JoinLink,
  LinkPath,
  ListParticipantsQuery,
  LobbyDecisionRequest,
  LobbyEntryPath,
  LobbyDenial,
  LobbyList,
  RoomSelf,
  VisitorStanding,
  LobbyStatus,
  LobbyStatusRequest,
  LobbyWait,
  MuteRequest,
  ParticipantList,
  ParticipantPath,
  RoomLockRequest,
  RoomSessionHeader,
  HandRequest,
  HandState,
  ParticipantRoleChange,
  ParticipantRoleRequest,
  ReactionRequest,
  SpotlightRequest,
  CreateMeetingRequest,
  JoinGrant,
  JoinLinkHolder,
  JoinLinkList,
  JoinLinkHolderRequest,
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
  meetingNotFoundResponse,
  cancelledMeetingResponse,
  serverErrorResponses as serverErrors,
  tooManyRequestsResponse,
  unauthorizedResponse as unauthorized,
  type OpenApiFragment,
} from "./document.ts";

const tooManyRequests = tooManyRequestsResponse();
const goneMeeting = errorResponse('The meeting has ended or was cancelled: `{"error": "This meeting has ended"}`.');

/** An operation of the meeting room's own API: authenticated by the participant's room session (X-Room-Session). */
export const roomOperation = (spec: {
  operationId: string;
  summary: string;
  description: string;
  path?: zod.ZodObject;
  body?: zod.ZodType;
  ok: ReturnType<typeof jsonResponse>;
  host?: boolean;
  okStatus?: "200" | "201" | "202";
  /** Further answers, or ones that differ from the common ones. */
  extra?: Record<string, ReturnType<typeof errorResponse>>;
}) => ({
  operationId: spec.operationId,
  summary: spec.summary,
  description: `${spec.description} Authenticated by the caller's room session (\`X-Room-Session\`, from their join grant), not an API credential.${spec.host ? " Hosts only: anyone else gets 403, whatever their page shows." : ""}`,
  tags: ["Meeting rooms"],
  security: [],
  requestParams: { path: spec.path ?? MeetingPath, header: RoomSessionHeader },
  ...(spec.body ? { requestBody: jsonRequestBody(spec.body) } : {}),
  responses: {
    [spec.okStatus ?? "200"]: spec.ok,
    "400": errorResponse("The body or a value is invalid; the message says which."),
    "401": errorResponse("No room session, or one that is not valid for this meeting."),
    "403": errorResponse(spec.host ? "The caller is not a host of this meeting, or was removed from it." : "The caller was removed from this meeting."),
    "404": errorResponse("No such meeting, or no such participant or lobby entry in it."),
    "410": goneMeeting,
    ...(spec.body ? { "413": errorResponse("Request body over 100 KB.") } : {}),
    "429": tooManyRequests,
    ...serverErrors,
    ...spec.extra,
  },
});
const ok = (description: string) => jsonResponse(zod.object({}).loose(), description);
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
          "The caller's organization's meetings, newest first (by creation), in pages, each with how many people joined it and how many recordings it has. Filters combine: `status`, a range of planned start (`startFrom` inclusive, `startBefore` exclusive; meetings without a start are left out when either is given), and `search` (text in the title or in an invited person's address). Pass `nextPageToken` back as `pageToken` for the next page; it is null on the last page.",
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
          "404": meetingNotFoundResponse,
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
          "404": meetingNotFoundResponse,
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
          "410": cancelledMeetingResponse(Meeting, "the cancelled meeting (`status` `cancelled`, `cancelledAt` set)"),
          "404": meetingNotFoundResponse,
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
          "404": meetingNotFoundResponse,
          "409": errorResponse('The meeting was cancelled: `{"error": "Meeting has been cancelled and cannot be ended"}`.'),
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests,
          "500": errorResponse("Internal server error."),
          "503": errorResponse("A service is temporarily unavailable."),
        },
      },
    },
    "/meeting/{id}/links": {
      get: {
        operationId: "listJoinLinks",
        summary: "List a meeting's personal join links",
        description:
          "Every personal link of the meeting, newest first (at most 1000), never its secret or URL: so an organizer who lost a `linkId` can still revoke it. `role` is what the link gives now (an invitee's follows the meeting's `hosts` and `attendees`), `state` says whether it lets its holder in (`active`) or why not (`revoked`, `expired`, `uninvited`).",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.links"] }],
        requestParams: { path: MeetingPath },
        responses: {
          "200": jsonResponse(JoinLinkList, "The meeting's links."),
          "401": unauthorized,
          "403": forbidden("meeting.links"),
          "404": meetingNotFoundResponse,
          "410": cancelledMeetingResponse(JoinLinkList, "the meeting's links"),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
      post: {
        operationId: "createJoinLink",
        summary: "Create a personal join link",
        description:
          "A join link for one person: `{email}` of an invited host or attendee (the link's role is theirs, read live: a PATCH of `hosts` or `attendees` changes what the link gives at once, and an address in neither makes it let nobody in), or `{role: \"guest\", name}` for someone not invited. The URL is the meeting's join URL with an unguessable secret in its fragment (`#link=…`): opening it enters the room as that person, name prefilled, identity known (attendance, `meeting.no_show`). A host's link enters without waiting in the lobby and carries the host controls. The secret is shown once (only its SHA-256 is kept); links expire (`expiresAt`), can be revoked, and work for their own meeting only. The plain join URL keeps working for guests.",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.links"] }],
        requestParams: { path: MeetingPath },
        requestBody: jsonRequestBody(CreateJoinLinkRequest),
        responses: {
          "201": jsonResponse(JoinLink, "The link; its URL is shown only now."),
          "400": errorResponse(
            "Not an invited address, a role that is not the invitation's, a guest without a name, an expiry in the past or over 90 days away.",
          ),
          "401": unauthorized,
          "403": forbidden("meeting.links"),
          "404": meetingNotFoundResponse,
          "409": errorResponse("The meeting has ended or was cancelled."),
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/meeting/{id}/links/{linkId}": {
      delete: {
        operationId: "revokeJoinLink",
        summary: "Revoke a personal join link",
        description:
          "The link no longer lets anyone in, and whoever is in the room with it is removed from the room at once (their room session stops acting). Idempotent: `revokedNow` is false when it was revoked before.",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.links"] }],
        requestParams: { path: LinkPath },
        responses: {
          "200": jsonResponse(zod.object({ linkId: zod.string(), revoked: zod.literal(true), revokedNow: zod.boolean() }), "The link is revoked."),
          "401": unauthorized,
          "403": forbidden("meeting.links"),
          "404": errorResponse("No such meeting in the caller's organization, or no such link of it."),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/meeting/{id}/participants": {
      get: {
        operationId: "listMeetingParticipants",
        summary: "Who attended: every visit of the meeting room",
        description:
          "Each visit (a rejoin is a second one), oldest first, in pages: `participantId`, `name`, `email` (when entered with a personal link), `role`, `joinedAt`, `leftAt` (null while present) and `durationSeconds`. A cancelled meeting answers 410 with the page.",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.read"] }],
        requestParams: { path: MeetingPath, query: ListParticipantsQuery },
        responses: {
          "200": jsonResponse(ParticipantList, "A page of visits."),
          "400": errorResponse("A page parameter is invalid."),
          "401": unauthorized,
          "403": forbidden("meeting.read"),
          "404": meetingNotFoundResponse,
          "410": cancelledMeetingResponse(ParticipantList, "the page of visits"),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/meeting/{id}/attendance": {
      get: {
        operationId: "getMeetingAttendance",
        summary: "Who came and who did not",
        description:
          "Each invited host and attendee (in the meeting's order, whether they came or not) and then each guest, with their visits, their total time, whether they are in the room now (`present`) and, for an invited person who never came, `noShow` once the meeting has ended or its no-show time has passed. An invited person is told apart by the address of their personal link; every entry through the plain join URL is a guest of its own (as in `meeting.ended`'s attendance). A cancelled meeting answers 410 with who had come before it was cancelled.",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.read"] }],
        requestParams: { path: MeetingPath },
        responses: {
          "200": jsonResponse(Attendance, "The meeting's attendance."),
          "401": unauthorized,
          "403": forbidden("meeting.read"),
          "404": meetingNotFoundResponse,
          "410": cancelledMeetingResponse(Attendance, "the attendance until it was cancelled"),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/usage": {
      get: {
        operationId: "getUsage",
        summary: "The organization's use of meetings and recordings",
        description:
          "Per UTC day of the last `days` (default 30, today last): meetings with someone in their room that day and the minutes people spent in rooms that day (a visit across midnight counts in both days, each part once; a visit still open counts until now). Also the minutes of recordings started in the period and what the organization stores now (bytes and recordings).",
        tags: ["Meetings"],
        security: [{ ApiKey: [] }, { OAuth2: ["meeting.read"] }],
        requestParams: { query: UsageQuery },
        responses: {
          "200": jsonResponse(Usage, "The organization's usage."),
          "400": errorResponse("`days` is not a whole number from 1 to 90."),
          "401": unauthorized,
          "403": forbidden("meeting.read"),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/meeting/{id}/link-holder": {
      post: {
        operationId: "getJoinLinkHolder",
        summary: "Who a personal join link is for",
        description:
          "What the join page asks when it is opened with a personal link (`#link=…` in its URL): the role the holder enters with and the name given when the link was made, which the page prefills (the person may change it). A POST so the secret stays out of URLs and logs. Public like join: no Authorization header. A link that does not let its holder in is 403 with the reason, in the words the join would answer.",
        tags: ["Meeting rooms"],
        security: [],
        requestParams: { path: MeetingPath },
        requestBody: jsonRequestBody(JoinLinkHolderRequest),
        responses: {
          "200": jsonResponse(JoinLinkHolder, "Who the link is for."),
          "400": errorResponse("Not a JSON object, or `link` missing or not a string."),
          "403": errorResponse(
            'The link is not valid, is for another meeting, was revoked or has expired, its person is no longer invited, or its holder was removed from the meeting: `{"error": "This join link has expired"}`.',
          ),
          "404": errorResponse('No such meeting: `{"error": "Meeting not found"}`.'),
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/meeting/{id}/visitor": {
      get: {
        operationId: "getVisitorStanding",
        summary: "Whether this browser session was removed from the meeting",
        description:
          'What the join page asks before it offers to join: `removed` is true when someone was removed from the meeting from this browser session (the `svc_room_visitor` cookie), so a reload shows "You were removed" rather than the join form. Public like join. Without the cookie the answer is `removed: false` and the cookie is set here (HttpOnly, SameSite=Strict, path `/api/v1/meeting`), so that every join from this browser session carries the same one, however many are asked for at once.',
        tags: ["Meeting rooms"],
        security: [],
        requestParams: { path: MeetingPath },
        responses: {
          "200": jsonResponse(VisitorStanding, "The browser session's standing."),
          "404": errorResponse('No such meeting: `{"error": "Meeting not found"}`.'),
          "410": cancelledMeetingResponse(VisitorStanding, "the browser session's standing"),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/meeting/{id}/lobby/status": {
      post: {
        operationId: "getLobbyStatus",
        summary: "How a lobby wait stands",
        description:
          "Whoever waits in the lobby (join answered 202) asks with their `lobbyTicket` every second or two: `waiting`, `locked` (a host locked the room; still waiting), `denied`, or `admitted` with their join grant. Public like join.",
        tags: ["Meeting rooms"],
        security: [],
        requestParams: { path: MeetingPath },
        requestBody: jsonRequestBody(LobbyStatusRequest),
        responses: {
          "200": jsonResponse(LobbyStatus, "How it stands."),
          "400": errorResponse("Not a JSON object, or `ticket` missing."),
          "403": errorResponse("The person was removed from this meeting."),
          "404": errorResponse("No such meeting, or no such ticket for it."),
          "409": errorResponse("The meeting room is full."),
          "410": goneMeeting,
          "413": errorResponse("Request body over 100 KB."),
          "429": tooManyRequests,
          ...serverErrors,
        },
      },
    },
    "/meeting/{id}/room/lobby": {
      get: roomOperation({
        operationId: "listLobby",
        summary: "Who waits in the lobby",
        description:
          "The people waiting, longest first, how many wait in all, and whether the room is locked. When more than 200 wait, the list holds the 100 longest waiting and the 100 newest arrivals, so a late arrival is never hidden behind a flood.",
        ok: jsonResponse(LobbyList, "The lobby."),
        host: true,
      }),
    },
    "/meeting/{id}/room/lobby/deny-all": {
      post: roomOperation({
        operationId: "denyAllWaiting",
        summary: "Turn away everyone waiting",
        description: "Denies every lobby entry waiting now (their pages show that they were not let in); for a lobby flooded by strangers.",
        ok: jsonResponse(LobbyDenial, "How many were turned away."),
        host: true,
      }),
    },
    "/meeting/{id}/room/self": {
      get: roomOperation({
        operationId: "getRoomSelf",
        summary: "Who the caller is in the room now",
        description:
          "The caller's participant id and role as they are now. Rights are read live: a personal link's role follows the meeting's `hosts` and `attendees` (a host dropped from `hosts` is an attendee at once), and a session whose link was revoked, expired or is no longer invited gets 403 with the reason, as does a removed one. The page asks when the server tells it (data packet `svc.role`), and hosts' pages every few seconds.",
        ok: jsonResponse(RoomSelf, "Who the caller is."),
      }),
    },
    "/meeting/{id}/room/lobby/{entryId}": {
      post: roomOperation({
        operationId: "decideLobbyEntry",
        summary: "Admit or deny someone waiting",
        description: "`{admit: true}` lets them in (their page gets its grant), `{admit: false}` turns them away. A decision stands once made.",
        path: LobbyEntryPath,
        body: LobbyDecisionRequest,
        ok: ok("`{entryId, status}`: `admitted` or `denied`."),
        host: true,
      }),
    },
    "/meeting/{id}/room/lock": {
      post: roomOperation({
        operationId: "lockRoom",
        summary: "Lock or unlock the room",
        description: "While locked nobody new enters (joins answer 409; whoever waits sees `locked`); hosts with their link still do.",
        body: RoomLockRequest,
        ok: ok("`{locked}`."),
        host: true,
      }),
    },
    "/meeting/{id}/room/participants/{participantId}/mute": {
      post: roomOperation({
        operationId: "muteParticipant",
        summary: "Mute someone's microphone, or stop their camera or screen share",
        description: "Through LiveKit's MutePublishedTrack; they may turn it on again themselves. `muted` is false when they had nothing of that source on.",
        path: ParticipantPath,
        body: MuteRequest,
        ok: ok("`{participantId, source, muted}`."),
        host: true,
      }),
    },
    "/meeting/{id}/room/participants/{participantId}/remove": {
      post: roomOperation({
        operationId: "removeParticipant",
        summary: "Remove someone from the room",
        description: "Disconnects them (LiveKit RemoveParticipant); neither their link nor their browser session can enter this meeting again.",
        path: ParticipantPath,
        ok: ok("`{participantId, removed: true}`."),
        host: true,
      }),
    },
    "/meeting/{id}/room/participants/{participantId}/role": {
      post: roomOperation({
        operationId: "setParticipantRole",
        summary: "Make someone in the room a host, or take it back",
        description:
          "For the rest of the meeting. An invited person (in the room with their personal link) moves within the meeting's `hosts` and `attendees` as a PATCH would (`GET /meeting/{id}` shows it, `meeting.updated` is sent) and their link follows; someone who entered by the plain URL is a host as this participant. Their page is told (data packet `svc.role`) and shows the host controls, or loses them, without a reload. 409 for someone who entered with a guest link (invite them instead) or when the meeting already has 20 hosts; 400 for oneself.",
        path: ParticipantPath,
        body: ParticipantRoleRequest,
        ok: jsonResponse(ParticipantRoleChange, "Their role now."),
        host: true,
        extra: { "409": errorResponse("They entered with a guest link, or the meeting already has 20 hosts.") },
      }),
    },
    "/meeting/{id}/room/participants/{participantId}/hand": {
      post: roomOperation({
        operationId: "setHandRaised",
        summary: "Raise or lower a hand",
        description:
          "`participantId` `self` for the caller's own hand, which anyone raises and lowers; a host may lower anyone's (nobody raises another's: 403). The server sets the person's LiveKit participant attribute `hand` to the time raised (milliseconds since the epoch), which every page shows on the tile and in the people list, in the order raised; participants cannot set their own attributes (their grant has no `canUpdateOwnMetadata`), so a page cannot forge a hand.",
        path: ParticipantPath,
        body: HandRequest,
        ok: jsonResponse(HandState, "The hand as it is now."),
      }),
    },
    "/meeting/{id}/room/reactions": {
      post: roomOperation({
        operationId: "sendReaction",
        summary: "React with an emoji",
        description: `One of ${meetingLimits.reactions.join(" ")}, relayed by the server to everyone in the room (data packet \`svc.reaction\` with \`{participantId, emoji}\`), which their pages float over the sender's tile for a few seconds. At most ${meetingLimits.reactionsPerWindow} per ${meetingLimits.reactionWindowSeconds} seconds per person: more get 429 with Retry-After.`,
        body: ReactionRequest,
        ok: ok("`{emoji}`: relayed."),
        okStatus: "202",
      }),
    },
    "/meeting/{id}/room/spotlight": {
      post: roomOperation({
        operationId: "setSpotlight",
        summary: "Spotlight someone for everyone",
        description:
          "Shows the person large on everyone's stage (speaker view) until a host spotlights someone else or nobody (`participantId: null`), or they leave; a shared screen still takes the stage. Carried as the LiveKit room's metadata (`{\"spotlight\": participantId}`), which only the server sets.",
        body: SpotlightRequest,
        ok: ok("`{participantId}`."),
        host: true,
      }),
    },
    "/meeting/{id}/room/end": {
      post: roomOperation({
        operationId: "endMeetingForEveryone",
        summary: "End the meeting for everyone",
        description: "Ends the meeting (`meeting.ended` with reason `ended_by_host`) and closes its room, disconnecting everyone.",
        ok: ok("`{meetingId, ended: true}`."),
        host: true,
      }),
    },
    "/meeting/{id}/room/chat": {
      get: roomOperation({
        operationId: "listChatMessages",
        summary: "The chat since the meeting started",
        description:
          "What someone joining late sees: the messages sent since the meeting started (the last 500), oldest first. Nothing is kept after the meeting ends.",
        ok: jsonResponse(ChatMessages, "The messages."),
      }),
      post: roomOperation({
        operationId: "sendChatMessage",
        summary: "Send a chat message",
        description:
          "Stored until the meeting ends and relayed by the server to everyone in the room (a LiveKit data packet on topic `svc.chat`) with the sender's name and the time. Text only: pages show it as text, links included.",
        body: ChatMessageRequest,
        ok: jsonResponse(ChatMessage, "The message as sent to the room."),
        okStatus: "201",
      }),
    },
    "/meeting/{id}/join": {
      post: {
        operationId: "joinMeeting",
        summary: "Get a join grant for the meeting room",
        description:
          "What the join page calls when a person clicks Join: a short-lived token for the media server (LiveKit) room of the meeting, for a new participant identity with the given display name. Public like the join page: no Authorization header is needed, because holding the meeting's unguessable id is the permission. The token must be used to connect before `expiresAt` (JOIN_TOKEN_TTL_SECONDS, default 300 s). Refused for unknown (404), ended (410), full or locked (409) meetings; limited per client address, an IPv6 /64 counting as one (JOIN_GRANTS_PER_MINUTE, default 30), and per meeting (JOIN_GRANTS_PER_MEETING_PER_MINUTE, default 300) for people without a personal link; a valid personal link is charged to a budget of its own instead (JOIN_GRANTS_PER_LINK_PER_MINUTE, default 30), so strangers cannot lock invited people out. With `link` (a personal link's secret) the person enters with the role the link gives now (an invitee's follows the meeting's `hosts` and `attendees`); a bad, revoked, expired or no longer invited link is 403. With the meeting's `lobby` on, anyone but a host gets 202 and waits (one entry per browser session or link; at most LOBBY_WAITING_PER_ADDRESS, default 5, waiting from one address, beyond which 429). The grant's `roomSession` authenticates the room's own API (chat; host actions for hosts). A session cookie (`svc_room_visitor`, HttpOnly) marks the browser session, so someone removed cannot come back from it.",
        tags: ["Meeting rooms"],
        security: [],
        requestParams: { path: MeetingPath },
        requestBody: jsonRequestBody(JoinMeetingRequest),
        responses: {
          "200": jsonResponse(JoinGrant, "The grant: connect to `serverUrl` with `token`."),
          "202": jsonResponse(LobbyWait, "The meeting has a lobby: wait (POST /meeting/{id}/lobby/status) until a host admits you."),
          "403": errorResponse(
            "The personal link is not valid, is for another meeting, was revoked or has expired; or the person was removed from this meeting.",
          ),
          "400": errorResponse(
            "Not a JSON object, `displayName` missing or not a string, empty after trimming, over 64 characters, or containing control characters or line breaks.",
          ),
          "404": errorResponse('No such meeting: `{"error": "Meeting not found"}`.'),
          "409": errorResponse('The meeting room is full (`{"error": "This meeting is full (100 participants)"}`), or a host locked it.'),
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
