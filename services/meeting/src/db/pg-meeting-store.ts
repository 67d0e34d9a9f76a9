import { runIdempotently, type Pool } from "@svc/platform";
import type { MeetingStore } from "../meeting-store.ts";
import { getMeeting, getMeetingOfOrg, insertMeeting, listMeetings } from "./meetings.ts";

/** MeetingStore on the service's Postgres schema; a meeting and its idempotency key are stored in one transaction. */
export function pgMeetingStore(pool: Pool): MeetingStore {
  return {
    create: (meeting, idempotent) =>
      runIdempotently(pool, idempotent.request, idempotent.codec, async (client) => idempotent.answer(await insertMeeting(client, meeting))),
    getOfOrg: (orgId, id) => getMeetingOfOrg(pool, orgId, id),
    get: (id) => getMeeting(pool, id),
    list: (orgId, page) => listMeetings(pool, orgId, page),
  };
}
