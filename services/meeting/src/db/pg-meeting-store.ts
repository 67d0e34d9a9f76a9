import { runIdempotently, type Pool } from "@svc/platform/db";
import type { MeetingStore } from "../meeting-store.ts";
import { joinedCountOf, peopleOf } from "../attendance.ts";
import { recordingCountsOf } from "./recordings.ts";
import { visitsOfMeetings } from "./room-participants.ts";
import { getMeeting, getMeetingOfOrg, insertMeeting, listMeetings } from "./meetings.ts";
import { transcriptionDefaultOf } from "./organization-settings.ts";
import { DEFAULT_SETTINGS } from "../meeting-request.ts";

/**
 * MeetingStore on the service's Postgres schema. A meeting and its idempotency key are stored in
 * one transaction; without a key the meeting is one statement (insertMeeting), atomic by itself,
 * so it is sent alone: one round trip instead of BEGIN, INSERT and COMMIT.
 */
export function pgMeetingStore(pool: Pool): MeetingStore {
  return {
    create: async (meeting, idempotent) =>
      idempotent.request
        ? runIdempotently(pool, idempotent.request, idempotent.codec, async (client) => idempotent.answer(await insertMeeting(client, meeting)))
        : { value: idempotent.answer(await insertMeeting(pool, meeting)), replayed: false },
    getOfOrg: (orgId, id) => getMeetingOfOrg(pool, orgId, id),
    get: (id) => getMeeting(pool, id),
    list: (orgId, page) => listMeetings(pool, orgId, page),
    settingsDefaultsOf: async (orgId) => ({ ...DEFAULT_SETTINGS, transcription: await transcriptionDefaultOf(pool, orgId) }),
    async activitiesOf(meetings) {
      const ids = meetings.map((meeting) => meeting.id);
      const [visits, recordings] = await Promise.all([visitsOfMeetings(pool, ids), recordingCountsOf(pool, ids)]);
      const now = new Date();
      return new Map(
        meetings.map((meeting) => [
          meeting.id,
          { joinedCount: joinedCountOf(peopleOf(meeting, visits.get(meeting.id) ?? [], now)), recordingCount: recordings.get(meeting.id) ?? 0 },
        ]),
      );
    },
  };
}
