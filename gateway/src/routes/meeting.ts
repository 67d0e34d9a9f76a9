import { ConnectError } from "@connectrpc/connect";
import { Router } from "express";
import type { z } from "zod";
import type { Logger } from "@svc/platform";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  MeetingStatus,
  ParticipantRole,
  RecordingMode,
  ScreenSharePolicy,
  TranscriptionMode,
  type Meeting,
  type ParticipantRecord,
} from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { Clients } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";
import { fromConnectError, HttpError } from "../http/errors.ts";
import { meetingLimits, parseOffsetDateTime } from "@svc/platform/contract";
import { idempotencyCall } from "../http/idempotency.ts";
import { parseJsonBody, parseQuery } from "../http/parse-request.ts";
import {
  CreateJoinLinkRequest,
  CreateMeetingRequest,
  ListMeetingsQuery,
  ListParticipantsQuery,
  UpdateMeetingRequest,
  isJoinLinkState,
  UsageQuery,
  type Attendance,
  type JoinLink,
  type JoinLinkList,
  type Usage,
  type ParticipantList,
  type Meeting as MeetingResource,
  type MeetingJoinPayload,
  type MeetingList,
} from "../contract/meeting.ts";
import { enumName, isoOrNull, isoTime } from "./proto-to-json.ts";
import { meetingStatusWords, participantRoleWords, recordingModeWords, roleName, screenSharePolicyWords, transcriptionModeWords } from "./enum-words.ts";

const attendeeList = (attendees: string | string[] | null | undefined) =>
  attendees === null || attendees === undefined ? [] : typeof attendees === "string" ? [attendees] : attendees;

const settingsOf = (body: {
  lobby?: boolean | undefined;
  screenShare?: "everyone" | "hosts" | undefined;
  noShowAfterMinutes?: number | undefined;
  recording?: "off" | "manual" | "auto" | undefined;
  transcription?: "off" | "on" | undefined;
}) => ({
  lobby: body.lobby,
  screenShare: body.screenShare ? screenSharePolicyWords.valueOf(body.screenShare) : ScreenSharePolicy.UNSPECIFIED,
  noShowAfterMinutes: body.noShowAfterMinutes,
  recording: body.recording ? recordingModeWords.valueOf(body.recording) : RecordingMode.UNSPECIFIED,
  transcription: body.transcription ? transcriptionModeWords.valueOf(body.transcription) : TranscriptionMode.UNSPECIFIED,
});

/** The update-mask path of each PATCH body field. */
const updatePaths: Record<string, string> = {
  duration: "duration_minutes",
  lobby: "settings.lobby",
  screenShare: "settings.screen_share",
  noShowAfterMinutes: "settings.no_show_after_minutes",
  recording: "settings.recording",
  transcription: "settings.transcription",
};

/** One visit of a meeting room, as the participant list and the attendance show it. */
const visitResource = (visit: ParticipantRecord) => ({
  participantId: visit.participantId,
  name: visit.name,
  email: visit.email || null,
  role: roleName(visit.role),
  joinedAt: isoTime(visit.joinedAt),
  leftAt: isoOrNull(visit.leftAt),
  durationSeconds: Number(visit.durationSeconds),
});

/** The creation payload of spec 2.2. The join URL is the capability, so the password is empty. */
const joinPayload = (meeting: Meeting): z.input<typeof MeetingJoinPayload> => ({ type: "svc_video", id: meeting.id, password: "", url: meeting.joinUrl });

/** A stored meeting (extension endpoints): the creation payload plus its state. */
const meetingResource = (meeting: Meeting): z.input<typeof MeetingResource> => ({
  ...joinPayload(meeting),
  title: meeting.title,
  start: isoOrNull(meeting.start),
  end: isoOrNull(meeting.end),
  status: enumName(meetingStatusWords, meeting.status),
  attendees: meeting.attendees,
  hosts: meeting.hosts,
  lobby: meeting.settings?.lobby ?? false,
  // A meeting the service answers always has its settings; the defaults are the contract's.
  screenShare: screenSharePolicyWords.wordOf(meeting.settings?.screenShare ?? ScreenSharePolicy.EVERYONE) ?? "everyone",
  noShowAfterMinutes: meeting.settings?.noShowAfterMinutes ?? meetingLimits.noShowAfterMinutesDefault,
  recording: recordingModeWords.wordOf(meeting.settings?.recording ?? RecordingMode.OFF) ?? "off",
  transcription: transcriptionModeWords.wordOf(meeting.settings?.transcription ?? TranscriptionMode.OFF) ?? "off",
  createdAt: isoTime(meeting.createdAt),
  endedAt: isoOrNull(meeting.endedAt),
  cancelledAt: isoOrNull(meeting.cancelledAt),
});

/**
 * POST /meeting (spec 4.2), and the extensions: list, get, update, cancel and end
 * (docs/decisions/0007-meeting-status-follows-the-room.md). Mounted on the authenticated /api/v1 router; the meeting service
 * authenticates the forwarded credential and checks the OAuth scope.
 */
export function meetingRoutes(clients: Clients, logger: Logger): Router {
  const router = Router();

  router.post("/meeting", async (req, res) => {
    const body = parseJsonBody(CreateMeetingRequest, req.body);
    const { title, start, end, duration, attendees } = body;
    const idempotency = idempotencyCall(req, res);
    try {
      const { meeting } = await clients.meeting.createMeeting(
        {
          title: title ?? "",
          start: start ?? undefined,
          end: end ?? undefined,
          durationMinutes: duration ?? undefined,
          attendees: attendeeList(attendees),
          hosts: attendeeList(body.hosts),
          settings: settingsOf(body),
        },
        { headers: { ...forwardedCredential(res.locals), ...idempotency.headers }, onHeader: idempotency.onHeader },
      );
      res.json(joinPayload(meeting!));
    } catch (error) {
      // The specification fixes the 500 message of this endpoint; the cause goes to our log only.
      const httpError = fromConnectError(ConnectError.from(error), "Failed to create meeting");
      if (httpError.status >= 500) logger.error({ err: error, requestId: res.locals.requestId }, "meeting creation failed downstream");
      throw httpError;
    }
  });

  router.get("/meeting", async (req, res) => {
    const query = parseQuery(ListMeetingsQuery, req.query);
    const page = await clients.meeting.listMeetings(
      {
        pageSize: query.pageSize ?? 0,
        pageToken: query.pageToken ?? "",
        status: query.status ? meetingStatusWords.valueOf(query.status) : MeetingStatus.UNSPECIFIED,
        startFrom: query.startFrom,
        startBefore: query.startBefore,
        search: query.search ?? "",
      },
      { headers: forwardedCredential(res.locals) },
    );
    res.set("Cache-Control", "no-store");
    const list: z.input<typeof MeetingList> = {
      meetings: page.meetings.map((meeting, index) => ({
        ...meetingResource(meeting),
        joinedCount: page.activities[index]?.joinedCount ?? 0,
        recordingCount: page.activities[index]?.recordingCount ?? 0,
      })),
      nextPageToken: page.nextPageToken || null,
    };
    res.json(list);
  });

  router.get("/usage", async (req, res) => {
    const query = parseQuery(UsageQuery, req.query);
    const usage = await clients.meeting.getUsage({ days: query.days ?? 0 }, { headers: forwardedCredential(res.locals) });
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof Usage> = {
      days: usage.days.map(({ date, meetings, participantMinutes }) => ({ date, meetings, participantMinutes })),
      recordingMinutes: usage.recordingMinutes,
      storageBytes: Number(usage.storageBytes),
      recordingsStored: usage.recordingsStored,
    };
    res.json(answer);
  });

  router.patch("/meeting/:id", async (req, res) => {
    const body = parseJsonBody(UpdateMeetingRequest, req.body);
    // The fields present in the body are the ones to change (null clears start and end).
    const paths = Object.keys(body).map((field) => updatePaths[field] ?? field);
    const { meeting } = await clients.meeting.updateMeeting(
      {
        id: req.params.id,
        updateMask: { paths },
        title: body.title ?? "",
        start: body.start ?? undefined,
        end: body.end ?? undefined,
        durationMinutes: body.duration ?? undefined,
        attendees: attendeeList(body.attendees),
        hosts: attendeeList(body.hosts),
        settings: settingsOf(body),
      },
      { headers: forwardedCredential(res.locals) },
    );
    res.json(meetingResource(meeting!));
  });

  router.post("/meeting/:id/links", async (req, res) => {
    const body = parseJsonBody(CreateJoinLinkRequest, req.body);
    let expiresAt;
    if (body.expiresAt !== undefined) {
      const parsed = parseOffsetDateTime(body.expiresAt);
      if (!parsed.ok) throw new HttpError(400, `expiresAt ${parsed.problem}`);
      expiresAt = timestampFromDate(parsed.date);
    }
    const { link } = await clients.meeting.createJoinLink(
      {
        meetingId: req.params.id,
        email: body.email ?? "",
        name: body.name ?? "",
        role: body.role ? participantRoleWords.valueOf(body.role) : ParticipantRole.UNSPECIFIED,
        expiresAt,
      },
      { headers: forwardedCredential(res.locals) },
    );
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof JoinLink> = {
      linkId: link!.linkId,
      url: link!.url,
      role: roleName(link!.role),
      email: link!.email || null,
      name: link!.name || null,
      expiresAt: isoTime(link!.expiresAt),
    };
    res.status(201).json(answer);
  });

  router.get("/meeting/:id/links", async (req, res) => {
    const { links } = await clients.meeting.listJoinLinks({ meetingId: req.params.id }, { headers: forwardedCredential(res.locals) });
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof JoinLinkList> = {
      links: links.map((link) => {
        // The meeting service names only these; anything else is a bug between the two, not an answer.
        if (!isJoinLinkState(link.state)) throw new Error(`unknown join link state ${link.state}`);
        return {
          linkId: link.linkId,
          role: participantRoleWords.wordOf(link.role) ?? null,
          email: link.email || null,
          name: link.name || null,
          expiresAt: isoTime(link.expiresAt),
          revokedAt: link.revokedAt ? isoTime(link.revokedAt) : null,
          createdAt: isoTime(link.createdAt),
          state: link.state,
        };
      }),
    };
    res.json(answer);
  });

  router.delete("/meeting/:id/links/:linkId", async (req, res) => {
    const { revokedNow } = await clients.meeting.revokeJoinLink(
      { meetingId: req.params.id, linkId: req.params.linkId },
      { headers: forwardedCredential(res.locals) },
    );
    res.json({ linkId: req.params.linkId, revoked: true, revokedNow });
  });

  router.get("/meeting/:id/participants", async (req, res) => {
    const query = parseQuery(ListParticipantsQuery, req.query);
    const page = await clients.meeting.listParticipants(
      { meetingId: req.params.id, pageSize: query.pageSize ?? 0, pageToken: query.pageToken ?? "" },
      { headers: forwardedCredential(res.locals) },
    );
    res.set("Cache-Control", "no-store");
    const list: z.input<typeof ParticipantList> = {
      participants: page.participants.map(visitResource),
      nextPageToken: page.nextPageToken || null,
    };
    res.json(list);
  });

  router.get("/meeting/:id/attendance", async (req, res) => {
    const attendance = await clients.meeting.getAttendance({ meetingId: req.params.id }, { headers: forwardedCredential(res.locals) });
    res.set("Cache-Control", "no-store");
    const answer: z.input<typeof Attendance> = {
      status: enumName(meetingStatusWords, attendance.status),
      people: attendance.people.map((person) => ({
        name: person.name,
        email: person.email || null,
        role: roleName(person.role),
        invited: person.invited,
        visits: person.visits.map(visitResource),
        totalSeconds: Number(person.totalSeconds),
        present: person.present,
        noShow: person.noShow,
      })),
    };
    res.json(answer);
  });

  router.delete("/meeting/:id", async (req, res) => {
    const { meeting } = await clients.meeting.cancelMeeting({ id: req.params.id }, { headers: forwardedCredential(res.locals) });
    res.json(meetingResource(meeting!));
  });

  router.get("/meeting/:id", async (req, res) => {
    const { meeting } = await clients.meeting.getMeeting({ id: req.params.id }, { headers: forwardedCredential(res.locals) });
    res.set("Cache-Control", "no-store");
    // A cancelled meeting is gone (DELETE succeeded): 410, with what it was, so a scheduling
    // tool still sees its final state (docs/meeting-room.md, "Cancelling").
    res.status(meeting!.status === MeetingStatus.CANCELLED ? 410 : 200).json(meetingResource(meeting!));
  });

  router.post("/meeting/:id/end", async (req, res) => {
    const { meeting } = await clients.meeting.endMeeting({ id: req.params.id }, { headers: forwardedCredential(res.locals) });
    res.json(meetingResource(meeting!));
  });

  return router;
}
