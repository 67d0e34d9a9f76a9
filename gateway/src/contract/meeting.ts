import { z } from "zod";
import { EMAIL_ADDRESS, emailAddressMaxLength, meetingLimits, OFFSET_DATE_TIME } from "@svc/platform/contract";
import { dateTime, nullableDateTime, oneLineText, personName, requestDateTime } from "./common.ts";

// ---- Requests -------------------------------------------------------------------------------

/** An attendee as the meeting service accepts it (the syntax and length of the contract's rule). */
const attendeeAddress = z.string().meta({ format: "email", pattern: EMAIL_ADDRESS.source, maxLength: emailAddressMaxLength });

const offsetDateTime = { pattern: OFFSET_DATE_TIME.source };

/** The fields of create and update: JSON types checked here, values by the meeting service. */
const meetingFields = {
  title: oneLineText("title", meetingLimits.titleMaxLength, "The meeting's title."),
  start: requestDateTime(
    "start",
    "ISO 8601 date-time with a UTC offset (`Z` or `±hh:mm`), for example `2025-06-01T09:00:00.000Z`. Null or absent: no start time.",
  )
    .meta(offsetDateTime)
    .nullable(),
  end: requestDateTime(
    "end",
    "The planned end: ISO 8601 date-time with a UTC offset, after `start` (which it needs). Not with `duration`. A meeting past its planned end with nobody in it ends by itself; people in the room keep it going until they leave.",
  )
    .meta(offsetDateTime)
    .nullable(),
  // A protobuf int32 on the way to the service, which owns the range rule.
  duration: z
    .int32({ error: "duration must be a whole number of minutes or null" })
    .meta({
      description: "The planned length in minutes, instead of `end`. Needs `start`.",
      override: { type: "integer", minimum: 1, maximum: meetingLimits.durationMaxMinutes },
    })
    .nullable(),
  attendees: z
    .union([attendeeAddress, z.array(attendeeAddress).meta({ maxItems: meetingLimits.attendeesMax })], {
      error: "attendees must be an e-mail address or an array of e-mail addresses",
    })
    .nullable()
    .meta({
      description: `One e-mail address, or a list of at most ${meetingLimits.attendeesMax}; duplicates (ignoring case) are dropped. Null or absent: none.`,
    }),
  hosts: z
    .union([attendeeAddress, z.array(attendeeAddress).meta({ maxItems: meetingLimits.hostsMax })], {
      error: "hosts must be an e-mail address or an array of e-mail addresses",
    })
    .nullable()
    .meta({
      description: `Invited hosts, like \`attendees\` (at most ${meetingLimits.hostsMax}): with their personal link (POST /meeting/{id}/links) they enter without waiting, admit people from the lobby, mute, stop and remove others, lock the room and end the meeting for everyone. An address in both lists is a host.`,
    }),
  lobby: z.boolean({ error: "lobby must be true or false" }).meta({
    description: "Default false. When true, anyone entering without a host's personal link waits in a lobby until a host admits or denies them.",
  }),
  screenShare: z
    .enum(["everyone", "hosts"], { error: "screenShare must be everyone or hosts" })
    .meta({ description: "Who may share their screen in the room. Default `everyone`." }),
  recording: z.enum(["off", "manual", "auto"], { error: "recording must be off, manual or auto" }).meta({
    description:
      "Default `off`: nobody can record the meeting. `manual`: a host in the room or the API (POST /meeting/{id}/recordings) starts and stops recordings. `auto`: a recording starts when the first person is admitted and stops when the meeting ends. Everyone in the room sees that it is being recorded, and the join page says so before they join.",
  }),
  transcription: z.enum(["off", "on"], { error: "transcription must be off or on" }).meta({
    description:
      "Default: the organization's (GET /transcription-settings; `off` until an admin changes it). `on`: while the meeting is recorded, each participant's audio is transcribed, and a transcript naming who said what follows (GET /meeting/{id}/transcripts, `transcript.ready`).",
  }),
  noShowAfterMinutes: z.int32({ error: "noShowAfterMinutes must be a whole number of minutes" }).meta({
    description: `Default ${meetingLimits.noShowAfterMinutesDefault}. That many minutes after \`start\`, each invited host or attendee who has not joined (with their personal link) is reported once with a \`meeting.no_show\` event.`,
    override: { type: "integer", minimum: meetingLimits.noShowAfterMinutesMin, maximum: meetingLimits.noShowAfterMinutesMax },
  }),
};

/**
 * A planned end is given one way (`end` or `duration`): both may be sent as null (clearing it), not
 * both with a value; and never beside a start sent as null (nothing for it to follow).
 */
const oneWayToEnd = {
  not: { required: ["end", "duration"], properties: { end: { type: "string" }, duration: { type: "integer" } } },
  allOf: [
    { if: { required: ["end"], properties: { end: { type: "string" } } }, then: { properties: { start: { type: "string" } } } },
    { if: { required: ["duration"], properties: { duration: { type: "integer" } } }, then: { properties: { start: { type: "string" } } } },
  ],
};

/** On create, a planned end needs a non-null start beside it. */
const plannedEndRules = {
  not: oneWayToEnd.not,
  allOf: [
    { if: { required: ["end"], properties: { end: { type: "string" } } }, then: { required: ["start"], properties: { start: { type: "string" } } } },
    { if: { required: ["duration"], properties: { duration: { type: "integer" } } }, then: { required: ["start"], properties: { start: { type: "string" } } } },
  ],
};

// Every field optional here: a missing title is refused by the service together with every other
// broken rule, in one message (the document marks it required for create).
const meetingBody = z.object({
  title: meetingFields.title.optional(),
  start: meetingFields.start.optional(),
  end: meetingFields.end.optional(),
  duration: meetingFields.duration.optional(),
  attendees: meetingFields.attendees.optional(),
  hosts: meetingFields.hosts.optional(),
  lobby: meetingFields.lobby.optional(),
  screenShare: meetingFields.screenShare.optional(),
  noShowAfterMinutes: meetingFields.noShowAfterMinutes.optional(),
  recording: meetingFields.recording.optional(),
  transcription: meetingFields.transcription.optional(),
});

export const CreateMeetingRequest = meetingBody.meta({
  id: "CreateMeetingRequest",
  description: "Unknown fields are ignored.",
  examples: [{ title: "30 min with Ada", start: "2031-02-01T10:00:00Z", end: "2031-02-01T10:30:00Z", attendees: ["ada@example.com"] }],
  override: ({ jsonSchema }) => {
    jsonSchema.required = ["title"];
    Object.assign(jsonSchema, plannedEndRules);
  },
});

/** PATCH: the same fields, all optional; those present are the ones to change. */
export const UpdateMeetingRequest = meetingBody.meta({
  id: "UpdateMeetingRequest",
  description:
    "Any of the fields of CreateMeetingRequest, at least one; those present are changed. Unknown fields are ignored. `end` or `duration` alone keeps the meeting's start (400 when it has none).",
  examples: [{ start: "2031-02-03T15:00:00Z", end: "2031-02-03T15:30:00Z", attendees: ["ada@example.com", "bob@example.com"] }],
  override: ({ jsonSchema }) => {
    jsonSchema.anyOf = [
      "title",
      "start",
      "end",
      "duration",
      "attendees",
      "hosts",
      "lobby",
      "screenShare",
      "noShowAfterMinutes",
      "recording",
      "transcription",
    ].map((field) => ({
      required: [field],
    }));
    // A start is not asked for beside `end` or `duration`: the meeting's own start is the one they follow.
    Object.assign(jsonSchema, oneWayToEnd);
  },
});

export const MeetingStatusName = z.enum(["scheduled", "live", "ended", "cancelled"], { error: "status must be one of scheduled, live, ended, cancelled" });

const pageSizeMessage = `pageSize must be a number from 1 to ${meetingLimits.pageSizeMax}`;

export const ListMeetingsQuery = z.object({
  status: MeetingStatusName.optional().meta({ description: "Only meetings in this status." }),
  startFrom: z
    .string()
    .optional()
    .meta({ format: "date-time", pattern: OFFSET_DATE_TIME.source, description: "Planned start at or after this ISO 8601 date-time (with a UTC offset)." }),
  startBefore: z
    .string()
    .optional()
    .meta({ format: "date-time", pattern: OFFSET_DATE_TIME.source, description: "Planned start before this ISO 8601 date-time (with a UTC offset)." }),
  pageSize: z.coerce
    .number({ error: pageSizeMessage })
    .int(pageSizeMessage)
    .min(1, pageSizeMessage)
    .max(meetingLimits.pageSizeMax, pageSizeMessage)
    .optional()
    .meta({ description: `1-${meetingLimits.pageSizeMax}, default 20.`, override: { type: "integer", minimum: 1, maximum: meetingLimits.pageSizeMax } }),
  pageToken: z
    .string({ error: "pageToken must be a single string" })
    .max(200, "pageToken is invalid")
    .optional()
    .meta({ description: "`nextPageToken` of the previous page, unchanged: an opaque cursor; any value this API did not return is 400." }),
  search: z
    .string({ error: "search must be a single string" })
    .max(meetingLimits.searchMaxLength, `search must be at most ${meetingLimits.searchMaxLength} characters`)
    .optional()
    .meta({
      description: `Only meetings whose title contains this text, or with an invited host or attendee whose address contains it (both ignoring case). At most ${meetingLimits.searchMaxLength} characters after trimming; empty: all.`,
    }),
});

export const UsageQuery = z.object({
  days: z.coerce
    .number({ error: `days must be a number from 1 to ${meetingLimits.usageDaysMax}` })
    .int(`days must be a number from 1 to ${meetingLimits.usageDaysMax}`)
    .min(1, `days must be a number from 1 to ${meetingLimits.usageDaysMax}`)
    .max(meetingLimits.usageDaysMax, `days must be a number from 1 to ${meetingLimits.usageDaysMax}`)
    .optional()
    .meta({
      description: `How many UTC days back, today included: 1-${meetingLimits.usageDaysMax}, default ${meetingLimits.usageDaysDefault}.`,
      override: { type: "integer", minimum: 1, maximum: meetingLimits.usageDaysMax },
    }),
});

export const MeetingPath = z.object({
  id: z.string().meta({ description: "The meeting id (22 URL-safe characters, as returned at creation)." }),
});

/** A personal join link's secret, as the page takes it from its URL's fragment (`#link=…`). */
const linkSecret = z.string({ error: "link must be a string" }).max(100, "link is not valid");

export const JoinMeetingRequest = z
  .object({
    displayName: personName("displayName", meetingLimits.displayNameMaxLength, "Shown to everyone in the room.").meta({ examples: ["Ada Lovelace"] }),
    link: linkSecret
      .optional()
      .meta({ description: "The secret of a personal join link (the `link` parameter of its URL's fragment): enter as its host, attendee or guest." }),
  })
  .meta({ id: "JoinMeetingRequest" });

export const JoinLinkHolderRequest = z
  .object({ link: linkSecret.meta({ description: "The secret of a personal join link (the `link` parameter of its URL's fragment)." }) })
  .meta({ id: "JoinLinkHolderRequest" });

export const CreateJoinLinkRequest = z
  .object({
    email: z.string({ error: "email must be a string" }).max(emailAddressMaxLength, "email is too long").optional().meta({
      format: "email",
      description: "An invited host's or attendee's address: the link's role is theirs.",
    }),
    role: z.enum(["host", "attendee", "guest"], { error: "role must be host, attendee or guest" }).optional().meta({
      description: "`guest` (with `name`) for someone not invited; with `email`, left out or the invitation's role.",
    }),
    name: z
      .string({ error: "name must be a string" })
      .max(200, "name is too long")
      .optional()
      .meta({
        description: `The name shown in the room (prefilled on the join page): required for a guest, 1-${meetingLimits.displayNameMaxLength} characters.`,
      }),
    expiresAt: requestDateTime(
      "expiresAt",
      "When the link stops working (at most 90 days from now). Default: 24 hours after the planned end (or start), and at least 24 hours from now.",
    )
      .meta(offsetDateTime)
      .optional(),
  })
  .meta({ id: "CreateJoinLinkRequest", examples: [{ email: "ada@example.com" }, { role: "guest", name: "Grace Hopper" }] });

export const LinkPath = MeetingPath.extend({ linkId: z.string().meta({ description: "`linkId` as returned at creation." }) });

export const ListParticipantsQuery = z.object({
  pageSize: ListMeetingsQuery.shape.pageSize.meta({ description: `1-${meetingLimits.pageSizeMax}, default 50.` }),
  pageToken: ListMeetingsQuery.shape.pageToken,
});

/** The room session of a participant (from their join grant), for the room's own API. */
export const RoomSessionHeader = z.object({
  "X-Room-Session": z.string().meta({ description: "`roomSession` of the caller's join grant." }),
});

export const LobbyStatusRequest = z
  .object({ ticket: z.string({ error: "ticket must be a string" }).max(100, "ticket is not valid") })
  .meta({ id: "LobbyStatusRequest" });
export const LobbyDecisionRequest = z.object({ admit: z.boolean({ error: "admit must be true or false" }) }).meta({ id: "LobbyDecisionRequest" });
export const LobbyEntryPath = MeetingPath.extend({ entryId: z.string().meta({ description: "`entryId` from the lobby list." }) });
export const RoomLockRequest = z.object({ locked: z.boolean({ error: "locked must be true or false" }) }).meta({ id: "RoomLockRequest" });
export const ParticipantPath = MeetingPath.extend({ participantId: z.string().meta({ description: "The participant's identity in the room." }) });
export const MuteRequest = z
  .object({ source: z.enum(["microphone", "camera", "screen_share"], { error: "source must be microphone, camera or screen_share" }) })
  .meta({ id: "MuteRequest" });
export const ParticipantRoleRequest = z
  .object({
    host: z.boolean({ error: "host must be true or false" }).meta({
      description: "true: make them a host for the rest of the meeting; false: take it back (an invited person becomes an attendee, anyone else a guest).",
    }),
  })
  .meta({ id: "ParticipantRoleRequest" });
export const HandRequest = z
  .object({ raised: z.boolean({ error: "raised must be true or false" }).meta({ description: "true raises the hand, false lowers it." }) })
  .meta({ id: "HandRequest" });
export const ReactionRequest = z
  .object({
    emoji: z
      .string({ error: "emoji must be a string" })
      .max(16, `emoji must be one of ${meetingLimits.reactions.join(" ")}`)
      .meta({ description: `One of ${meetingLimits.reactions.join(" ")}.` }),
  })
  .meta({ id: "ReactionRequest" });
export const SpotlightRequest = z
  .object({
    participantId: z
      .string({ error: "participantId must be a string or null" })
      .max(100, "participantId is not valid")
      .nullable()
      .meta({ description: "The person to show large for everyone; null for nobody." }),
  })
  .meta({ id: "SpotlightRequest" });
export const ChatMessageRequest = z
  .object({
    text: z
      .string({ error: "text must be a string" })
      .max(meetingLimits.chatMessageMaxLength * 4, `text must be at most ${meetingLimits.chatMessageMaxLength} characters`)
      .meta({ description: `1-${meetingLimits.chatMessageMaxLength} characters after trimming; shown as text (links are not made clickable).` }),
  })
  .meta({ id: "ChatMessageRequest" });

// ---- Responses ------------------------------------------------------------------------------

/** The creation payload of spec 2.2. The join URL is the capability, so the password is empty. */
export const MeetingJoinPayload = z
  .object({
    type: z.literal("svc_video"),
    id: z.string().meta({ description: "Meeting id: 22 URL-safe characters carrying 128 random bits." }),
    password: z.literal("").meta({ description: "Always empty: the join URL itself is the capability." }),
    url: z.string().meta({ format: "uri", description: "The join page, `{PUBLIC_URL}/meeting/<id>`." }),
  })
  .meta({ id: "MeetingJoinPayload" });

export const Meeting = MeetingJoinPayload.extend({
  title: z.string(),
  start: nullableDateTime(),
  end: nullableDateTime("The planned end, when one was given."),
  status: MeetingStatusName.meta({
    description:
      "`scheduled` until the first person enters the meeting room; `live` from then on (also while the room is briefly empty); `ended` once the room stayed empty for the grace period (MEETING_EMPTY_GRACE_SECONDS, default 60 s), its planned end passed with nobody in it, or it was ended through the API; `cancelled` once cancelled (DELETE).",
  }),
  attendees: z.array(z.string().meta({ format: "email" })),
  hosts: z.array(z.string().meta({ format: "email" })),
  lobby: z.boolean(),
  screenShare: z.enum(["everyone", "hosts"]),
  noShowAfterMinutes: z.number().int(),
  recording: z.enum(["off", "manual", "auto"]),
  transcription: z.enum(["off", "on"]),
  createdAt: dateTime(),
  endedAt: nullableDateTime(),
  cancelledAt: nullableDateTime(),
}).meta({ id: "Meeting" });

export const MeetingListItem = Meeting.extend({
  joinedCount: z.number().int().meta({
    description:
      "People who entered its room so far: invited hosts and attendees who came, and guests (each entry through the plain join URL is one guest, as in `meeting.ended`'s attendance).",
  }),
  recordingCount: z.number().int().meta({ description: "Its recordings that did not fail (in progress, being finished or ready)." }),
}).meta({ id: "MeetingListItem" });

export const MeetingList = z
  .object({
    meetings: z.array(MeetingListItem),
    nextPageToken: z.string().nullable().meta({ description: "Pass as `pageToken` for the next page; null on the last page." }),
  })
  .meta({ id: "MeetingList" });

export const JoinGrant = z
  .object({
    participantId: z.string().meta({ description: "The participant's identity in the room (new for every grant); webhook events name participants by it." }),
    token: z.string().meta({ description: "LiveKit access token (JWT) for the room named after the meeting id." }),
    serverUrl: z.string().meta({ format: "uri", description: "The media server's WebSocket URL (LIVEKIT_PUBLIC_URL)." }),
    expiresAt: dateTime("Connect before this time."),
    meeting: z.object({ id: z.string(), title: z.string(), status: z.enum(["scheduled", "live", "ended"]) }),
    role: z.enum(["host", "attendee", "guest"]).meta({ description: "From the personal link; `guest` for the plain join URL." }),
    roomSession: z.string().meta({ description: "The participant's credential for the room's own API (`X-Room-Session`): chat, and host actions for hosts." }),
  })
  .meta({ id: "JoinGrant" });

/** 202 from join: the meeting has a lobby, so the person waits for a host. */
export const LobbyWait = z
  .object({
    status: z.literal("waiting"),
    lobbyTicket: z.string().meta({ description: "Ask POST /meeting/{id}/lobby/status with it until admitted or denied." }),
    role: z.enum(["attendee", "guest"]),
    meeting: z.object({ id: z.string(), title: z.string(), status: z.enum(["scheduled", "live"]) }),
  })
  .meta({ id: "LobbyWait" });

export const LobbyStatus = z
  .object({
    status: z.enum(["waiting", "locked", "admitted", "denied"]).meta({
      description: "`locked`: still waiting, but a host locked the room. `admitted` comes with `grant`.",
    }),
    grant: JoinGrant.nullable(),
  })
  .meta({ id: "LobbyStatus" });

export const JoinLink = z
  .object({
    linkId: z.string().meta({ format: "uuid", description: "To revoke it: DELETE /meeting/{id}/links/{linkId}." }),
    url: z.string().meta({ format: "uri", description: "The join URL with the link's secret in its fragment (`#link=…`). Shown once: only a hash is kept." }),
    role: z.enum(["host", "attendee", "guest"]),
    email: z.string().nullable().meta({ format: "email" }),
    name: z.string().nullable(),
    expiresAt: dateTime(),
  })
  .meta({ id: "JoinLink" });

/** Whether a personal link lets its holder in now, or why not. */
export const JOIN_LINK_STATES = ["active", "revoked", "expired", "uninvited"] as const;
export type JoinLinkState = (typeof JOIN_LINK_STATES)[number];
export const isJoinLinkState = (value: string): value is JoinLinkState => (JOIN_LINK_STATES as readonly string[]).includes(value);

/** A meeting's personal links as the organizer lists them: never their secrets or URLs. */
export const JoinLinkList = z
  .object({
    links: z.array(
      z.object({
        linkId: z.string(),
        role: z
          .enum(["host", "attendee", "guest"])
          .nullable()
          .meta({ description: "The role the link gives now (an invitee's follows the meeting's `hosts` and `attendees`); null when it lets nobody in." }),
        email: z.string().nullable().meta({ format: "email" }),
        name: z.string().nullable(),
        expiresAt: dateTime(),
        revokedAt: nullableDateTime("Null unless revoked."),
        createdAt: dateTime(),
        state: z
          .enum(JOIN_LINK_STATES)
          .meta({ description: "`active`, or why it lets nobody in (`uninvited`: its address is in neither `hosts` nor `attendees` now)." }),
      }),
    ),
  })
  .meta({ id: "JoinLinkList" });

/** Who a personal link is for, as the join page shows it before anyone joins. */
export const JoinLinkHolder = z
  .object({
    role: z.enum(["host", "attendee", "guest"]).meta({ description: "The role its holder enters with." }),
    name: z.string().nullable().meta({ description: "The name given when the link was made: the join page prefills it (editable). Null when none was given." }),
  })
  .meta({ id: "JoinLinkHolder" });

export const ParticipantList = z
  .object({
    participants: z.array(
      z.object({
        participantId: z.string(),
        name: z.string(),
        email: z.string().nullable().meta({ format: "email", description: "When they entered with a personal link of an invited host or attendee." }),
        role: z.enum(["host", "attendee", "guest"]),
        joinedAt: dateTime(),
        leftAt: nullableDateTime("Null while present."),
        durationSeconds: z.number().int().meta({ description: "Until `leftAt`, or until now while present." }),
      }),
    ),
    nextPageToken: z.string().nullable(),
  })
  .meta({ id: "ParticipantList" });

const Visit = ParticipantList.shape.participants.element;

export const Attendance = z
  .object({
    status: MeetingStatusName,
    people: z.array(
      z.object({
        name: z.string().meta({ description: "The name they gave in the room (their latest visit's); empty for someone who never came." }),
        email: z.string().nullable().meta({ format: "email", description: "An invited host's or attendee's address; null for a guest." }),
        role: z.enum(["host", "attendee", "guest"]),
        invited: z.boolean().meta({ description: "An invited host or attendee; false for a guest." }),
        visits: z.array(Visit).meta({ description: "Their stays in the room, oldest first (as GET /meeting/{id}/participants gives them)." }),
        totalSeconds: z.number().int().meta({ description: "The sum of their visits; an open visit counts until now." }),
        present: z.boolean().meta({ description: "In the room now." }),
        noShow: z.boolean().meta({
          description: "Invited, never came, and the meeting has ended or its no-show time (`start` + `noShowAfterMinutes`) has passed.",
        }),
      }),
    ),
  })
  .meta({ id: "MeetingAttendance" });

export const Usage = z
  .object({
    days: z
      .array(
        z.object({
          date: z.string().meta({ format: "date", description: "The UTC day." }),
          meetings: z.number().int().meta({ description: "Meetings with someone in their room during the day." }),
          participantMinutes: z.number().meta({ description: "Time people spent in meeting rooms during the day, in minutes (to a tenth)." }),
        }),
      )
      .meta({ description: "One per day, oldest first, today last; days without meetings included." }),
    recordingMinutes: z.number().meta({ description: "Minutes of finished recordings that started in the period (to a tenth)." }),
    storageBytes: z.number().int().meta({ description: "Bytes of recording files the organization stores now." }),
    recordingsStored: z.number().int().meta({ description: "Recordings the organization stores now." }),
  })
  .meta({ id: "Usage" });

export const LobbyList = z
  .object({
    locked: z.boolean(),
    waiting: z
      .array(z.object({ entryId: z.string(), displayName: z.string(), waitingSince: dateTime() }))
      .meta({ description: "Longest waiting first. When more than 200 wait: the 100 longest waiting and the 100 newest arrivals." }),
    waitingCount: z.number().int().min(0).meta({ description: "How many wait in all (more than `waiting` lists when over 200)." }),
  })
  .meta({ id: "LobbyList" });

export const LobbyDenial = z.object({ denied: z.number().int().min(0).meta({ description: "How many were turned away." }) }).meta({ id: "LobbyDenial" });

/** Who the caller's room session is now: the role follows the invitation live. */
export const RoomSelf = z
  .object({
    participantId: z.string(),
    role: z.enum(["host", "attendee", "guest"]).meta({ description: "The role now (a host dropped from `hosts` is an attendee at once)." }),
  })
  .meta({ id: "RoomSelf" });

/** A person's role after a host changed it. */
export const ParticipantRoleChange = z
  .object({ participantId: z.string(), role: RoomSelf.shape.role.meta({ description: "Their role now." }) })
  .meta({ id: "ParticipantRoleChange" });

/** A hand raised or lowered. */
export const HandState = z
  .object({
    participantId: z.string(),
    raised: z.boolean(),
    raisedAt: z.string().nullable().meta({ format: "date-time", description: "When it was raised; null once lowered." }),
  })
  .meta({ id: "HandState" });

/** Whether this browser session may still enter the meeting, as the join page asks before showing the join form. */
export const VisitorStanding = z
  .object({ removed: z.boolean().meta({ description: "Someone was removed from the meeting from this browser session." }) })
  .meta({ id: "VisitorStanding" });

export const ChatMessage = z
  .object({ id: z.string(), participantId: z.string(), displayName: z.string(), text: z.string(), sentAt: dateTime() })
  .meta({ id: "ChatMessage" });
export const ChatMessages = z.object({ messages: z.array(ChatMessage) }).meta({ id: "ChatMessages" });
