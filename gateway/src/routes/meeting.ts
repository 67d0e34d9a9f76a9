import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import { Router } from "express";
import { z } from "zod";
import type { Logger } from "@svc/platform";
import { MeetingStatus, type Meeting } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { Clients } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";
import { fromConnectError, HttpError } from "../http/errors.ts";

const CALL_TIMEOUT_MS = 10_000;

/**
 * The JSON shape of POST /meeting (spec 2.1), and nothing more: wrong JSON types are refused
 * here, naming the field; every rule about the values (title length, date format, e-mail
 * addresses, limits) lives in the meeting service so gRPC callers meet it too. Unknown fields
 * are ignored. A missing title is passed on as "" for the service to refuse.
 */
const createMeetingBody = z.object({
  title: z.string({ error: "title must be a string" }).optional(),
  start: z.string({ error: "start must be a string (an ISO 8601 date-time) or null" }).nullish(),
  attendees: z
    .union([z.string(), z.array(z.string())], { error: "attendees must be an e-mail address or an array of e-mail addresses" })
    .nullish(),
});

const statusNames: Record<MeetingStatus, string> = {
  [MeetingStatus.UNSPECIFIED]: "unknown",
  [MeetingStatus.SCHEDULED]: "scheduled",
  [MeetingStatus.LIVE]: "live",
  [MeetingStatus.ENDED]: "ended",
};

const isoOrNull = (timestamp: Timestamp | undefined) => (timestamp ? timestampDate(timestamp).toISOString() : null);

/** The creation payload of spec 2.2. The join URL is the capability, so the password is empty. */
const joinPayload = (meeting: Meeting) => ({ type: "svc_video", id: meeting.id, password: "", url: meeting.joinUrl });

/** A stored meeting (extension endpoints): the creation payload plus its state. */
const meetingResource = (meeting: Meeting) => ({
  ...joinPayload(meeting),
  title: meeting.title,
  start: isoOrNull(meeting.start),
  status: statusNames[meeting.status],
  attendees: meeting.attendees,
  createdAt: isoOrNull(meeting.createdAt),
  endedAt: isoOrNull(meeting.endedAt),
});

/**
 * POST /meeting (spec 4.2), and the extensions GET /meeting/:id and POST /meeting/:id/end
 * (DESIGN.md section 3). Mounted on the authenticated /api/v1 router; the meeting service
 * authenticates the forwarded credential and checks the OAuth scope.
 */
export function meetingRoutes(clients: Clients, logger: Logger): Router {
  const router = Router();

  router.post("/meeting", async (req, res) => {
    const body: unknown = req.body ?? {};
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, "Request body must be a JSON object");
    const parsed = createMeetingBody.safeParse(body);
    if (!parsed.success) throw new HttpError(400, [...new Set(parsed.error.issues.map((issue) => issue.message))].join("; "));
    const { title, start, attendees } = parsed.data;
    try {
      const { meeting } = await clients.meeting.createMeeting(
        {
          title: title ?? "",
          start: start ?? undefined,
          attendees: attendees === null || attendees === undefined ? [] : typeof attendees === "string" ? [attendees] : attendees,
        },
        { headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS },
      );
      res.json(joinPayload(meeting!));
    } catch (error) {
      // The specification fixes the 500 message of this endpoint; the cause goes to our log only.
      const httpError = fromConnectError(ConnectError.from(error), "Failed to create meeting");
      if (httpError.status >= 500) logger.error({ err: error, requestId: res.locals.requestId }, "meeting creation failed downstream");
      throw httpError;
    }
  });

  router.get("/meeting/:id", async (req, res) => {
    const { meeting } = await clients.meeting.getMeeting({ id: req.params.id }, { headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS });
    res.set("Cache-Control", "no-store");
    res.json(meetingResource(meeting!));
  });

  router.post("/meeting/:id/end", async (req, res) => {
    const { meeting } = await clients.meeting.endMeeting({ id: req.params.id }, { headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS });
    res.json(meetingResource(meeting!));
  });

  return router;
}
