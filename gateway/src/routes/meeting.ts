import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { ConnectError } from "@connectrpc/connect";
import { Router } from "express";
import { z } from "zod";
import type { Logger } from "@svc/platform";
import { MeetingStatus, type Meeting } from "@svc/proto/svc/meeting/v1/meeting_pb";
import type { Clients } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";
import { fromConnectError, HttpError } from "../http/errors.ts";
import { idempotencyCall } from "../http/idempotency.ts";

const CALL_TIMEOUT_MS = 10_000;

/**
 * The JSON shape of POST /meeting (spec 2.1), and nothing more: wrong JSON types are refused
 * here, naming the field; every rule about the values (title length, date format, e-mail
 * addresses, limits) lives in the meeting service so gRPC callers meet it too. Unknown fields
 * are ignored. A missing title is passed on as "" for the service to refuse.
 */
const fields = {
  title: z.string({ error: "title must be a string" }),
  start: z.string({ error: "start must be a string (an ISO 8601 date-time) or null" }).nullable(),
  end: z.string({ error: "end must be a string (an ISO 8601 date-time) or null" }).nullable(),
  // A protobuf int32 on the way to the service, which owns the range rule (1-1440).
  duration: z.int32({ error: "duration must be a whole number of minutes or null" }).nullable(),
  attendees: z
    .union([z.string(), z.array(z.string())], { error: "attendees must be an e-mail address or an array of e-mail addresses" })
    .nullable(),
};

const createMeetingBody = z.object({
  title: fields.title.optional(),
  start: fields.start.optional(),
  end: fields.end.optional(),
  duration: fields.duration.optional(),
  attendees: fields.attendees.optional(),
});

/** PATCH: the same fields, all optional; the ones present are the ones to change. */
const updateMeetingBody = createMeetingBody;

const listQuery = z.object({
  status: z.enum(["scheduled", "live", "ended", "cancelled"], { error: "status must be one of scheduled, live, ended, cancelled" }).optional(),
  startFrom: z.string().optional(),
  startBefore: z.string().optional(),
  pageSize: z
    .string()
    .regex(/^\d{1,3}$/, "pageSize must be a number from 1 to 100")
    .transform(Number)
    .refine((size) => size >= 1 && size <= 100, "pageSize must be a number from 1 to 100")
    .optional(),
  pageToken: z.string().max(200, "pageToken is invalid").optional(),
});

export const statusNames: Record<MeetingStatus, string> = {
  [MeetingStatus.UNSPECIFIED]: "unknown",
  [MeetingStatus.SCHEDULED]: "scheduled",
  [MeetingStatus.LIVE]: "live",
  [MeetingStatus.ENDED]: "ended",
  [MeetingStatus.CANCELLED]: "cancelled",
};

const statusValues = Object.fromEntries(Object.entries(statusNames).map(([value, name]) => [name, Number(value) as MeetingStatus]));

const attendeeList = (attendees: string | string[] | null | undefined) =>
  attendees === null || attendees === undefined ? [] : typeof attendees === "string" ? [attendees] : attendees;

/** Parses a JSON body with `schema`, naming every wrong field in one 400. */
function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, "Request body must be a JSON object");
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, [...new Set(parsed.error.issues.map((issue) => issue.message))].join("; "));
  return parsed.data;
}

const isoOrNull = (timestamp: Timestamp | undefined) => (timestamp ? timestampDate(timestamp).toISOString() : null);

/** The creation payload of spec 2.2. The join URL is the capability, so the password is empty. */
const joinPayload = (meeting: Meeting) => ({ type: "svc_video", id: meeting.id, password: "", url: meeting.joinUrl });

/** A stored meeting (extension endpoints): the creation payload plus its state. */
const meetingResource = (meeting: Meeting) => ({
  ...joinPayload(meeting),
  title: meeting.title,
  start: isoOrNull(meeting.start),
  end: isoOrNull(meeting.end),
  status: statusNames[meeting.status],
  attendees: meeting.attendees,
  createdAt: isoOrNull(meeting.createdAt),
  endedAt: isoOrNull(meeting.endedAt),
  cancelledAt: isoOrNull(meeting.cancelledAt),
});

/**
 * POST /meeting (spec 4.2), and the extensions GET /meeting/:id and POST /meeting/:id/end
 * (DESIGN.md section 3). Mounted on the authenticated /api/v1 router; the meeting service
 * authenticates the forwarded credential and checks the OAuth scope.
 */
export function meetingRoutes(clients: Clients, logger: Logger): Router {
  const router = Router();

  router.post("/meeting", async (req, res) => {
    const { title, start, end, duration, attendees } = parseBody(createMeetingBody, req.body ?? {});
    const idempotency = idempotencyCall(req, res);
    try {
      const { meeting } = await clients.meeting.createMeeting(
        {
          title: title ?? "",
          start: start ?? undefined,
          end: end ?? undefined,
          durationMinutes: duration ?? undefined,
          attendees: attendeeList(attendees),
        },
        { headers: { ...forwardedCredential(res.locals), ...idempotency.headers }, onHeader: idempotency.onHeader, timeoutMs: CALL_TIMEOUT_MS },
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
    const parsed = listQuery.safeParse(req.query);
    if (!parsed.success) throw new HttpError(400, [...new Set(parsed.error.issues.map((issue) => issue.message))].join("; "));
    const query = parsed.data;
    const page = await clients.meeting.listMeetings(
      {
        pageSize: query.pageSize ?? 0,
        pageToken: query.pageToken ?? "",
        status: query.status ? statusValues[query.status]! : MeetingStatus.UNSPECIFIED,
        startFrom: query.startFrom,
        startBefore: query.startBefore,
      },
      { headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS },
    );
    res.set("Cache-Control", "no-store");
    res.json({ meetings: page.meetings.map(meetingResource), nextPageToken: page.nextPageToken || null });
  });

  router.patch("/meeting/:id", async (req, res) => {
    const body = parseBody(updateMeetingBody, req.body ?? {});
    // The fields present in the body are the ones to change (null clears start and end).
    const paths = Object.keys(body).map((field) => (field === "duration" ? "duration_minutes" : field));
    const { meeting } = await clients.meeting.updateMeeting(
      {
        id: req.params.id,
        updateMask: { paths },
        title: body.title ?? "",
        start: body.start ?? undefined,
        end: body.end ?? undefined,
        durationMinutes: body.duration ?? undefined,
        attendees: attendeeList(body.attendees),
      },
      { headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS },
    );
    res.json(meetingResource(meeting!));
  });

  router.delete("/meeting/:id", async (req, res) => {
    const { meeting } = await clients.meeting.cancelMeeting({ id: req.params.id }, { headers: forwardedCredential(res.locals), timeoutMs: CALL_TIMEOUT_MS });
    res.json(meetingResource(meeting!));
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
