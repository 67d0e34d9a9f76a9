import { Router } from "express";
import type { z } from "zod";
import type { Clients } from "../clients.ts";
import { forwardedCredential } from "../http/bearer.ts";
import { meetingReadOptions, sendMeetingRead } from "../http/cancelled-meeting.ts";
import { parseQuery } from "../http/parse-request.ts";
import { ListParticipantsQuery, UsageQuery, type Attendance, type ParticipantList, type Usage } from "../contract/meeting.ts";
import { enumName } from "./proto-to-json.ts";
import { meetingStatusWords, roleName } from "./enum-words.ts";
import { visitResource } from "./meeting-resources.ts";

/** Who came to a meeting (its visits, and each invited or present person's attendance) and the organization's usage. Mounted by meetingRoutes. */
export function meetingAttendanceRoutes(clients: Clients): Router {
  const router = Router();

  router.get("/meeting/:id/participants", async (req, res) => {
    const query = parseQuery(ListParticipantsQuery, req.query);
    const page = await clients.meeting.listParticipants(
      { meetingId: req.params.id, pageSize: query.pageSize ?? 0, pageToken: query.pageToken ?? "" },
      meetingReadOptions(res),
    );
    res.set("Cache-Control", "no-store");
    const list: z.input<typeof ParticipantList> = {
      participants: page.participants.map(visitResource),
      nextPageToken: page.nextPageToken || null,
    };
    sendMeetingRead(res, list);
  });

  router.get("/meeting/:id/attendance", async (req, res) => {
    const attendance = await clients.meeting.getAttendance({ meetingId: req.params.id }, meetingReadOptions(res));
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
    sendMeetingRead(res, answer);
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

  return router;
}
