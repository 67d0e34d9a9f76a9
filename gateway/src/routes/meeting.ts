import { ConnectError } from "@connectrpc/connect";
import { Router } from "express";
import type { z } from "zod";
import type { Logger } from "@svc/platform";
import { MeetingStatus } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { Clients } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";
import { meetingReadOptions, sendMeetingRead } from "../http/cancelled-meeting.ts";
import { fromConnectError } from "../http/errors.ts";
import { idempotencyCall } from "../http/idempotency.ts";
import { parseJsonBody, parseQuery } from "../http/parse-request.ts";
import { CreateMeetingRequest, ListMeetingsQuery, UpdateMeetingRequest, type MeetingList } from "../contract/meeting.ts";
import { meetingStatusWords } from "./enum-words.ts";
import { meetingAttendanceRoutes } from "./meeting-attendance.ts";
import { joinLinkRoutes } from "./join-links.ts";
import { attendeeList, joinPayload, meetingResource, settingsOf, updatePaths } from "./meeting-resources.ts";

/**
 * POST /meeting (spec 4.2), and the extensions: list, get, update, cancel and end
 * (docs/decisions/0007-meeting-status-follows-the-room.md), a meeting's personal join links
 * (join-links.ts), its participants and attendance and the organization's usage
 * (meeting-attendance.ts). Mounted on the authenticated /api/v1 router; the meeting service
 * authenticates the forwarded credential and checks the OAuth scope.
 */
export function meetingRoutes(clients: Clients, logger: Logger): Router {
  const router = Router();
  router.use(meetingChangeRoutes(clients, logger), meetingReadRoutes(clients), joinLinkRoutes(clients), meetingAttendanceRoutes(clients));
  return router;
}

/** Creating, updating, cancelling and ending a meeting. */
function meetingChangeRoutes(clients: Clients, logger: Logger): Router {
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

  router.delete("/meeting/:id", async (req, res) => {
    const { meeting } = await clients.meeting.cancelMeeting({ id: req.params.id }, { headers: forwardedCredential(res.locals) });
    res.json(meetingResource(meeting!));
  });

  router.post("/meeting/:id/end", async (req, res) => {
    const { meeting } = await clients.meeting.endMeeting({ id: req.params.id }, { headers: forwardedCredential(res.locals) });
    res.json(meetingResource(meeting!));
  });

  return router;
}

/** The organization's meetings, a page at a time, and one meeting. */
function meetingReadRoutes(clients: Clients): Router {
  const router = Router();

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

  router.get("/meeting/:id", async (req, res) => {
    const { meeting } = await clients.meeting.getMeeting({ id: req.params.id }, meetingReadOptions(res));
    res.set("Cache-Control", "no-store");
    sendMeetingRead(res, meetingResource(meeting!));
  });

  return router;
}
