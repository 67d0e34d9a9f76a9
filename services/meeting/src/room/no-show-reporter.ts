import { type Logger } from "@svc/platform";
import { inTransaction, type Pool } from "@svc/platform/db";
import { claimNoShowsDue, markNoShowsReported } from "../db/meetings.ts";
import { insertOutboxEvent } from "../db/outbox.ts";
import { meetingNoShowEvent } from "../meeting-events.ts";

const MEETINGS_PER_RUN = 50;

/**
 * Reports no-shows: `noShowAfterMinutes` after a meeting's start, one `meeting.no_show` for each
 * invited host or attendee who has not entered with their personal link. The events and the
 * meeting's "reported" mark are written in one transaction under the meeting's row lock (rows
 * another replica holds are skipped), so each person is reported exactly once across restarts
 * and replicas; the outbox delivers them like every other event.
 */
export function createNoShowReporter(deps: { pool: Pool; outboxWritten: () => void; logger: Logger }) {
  return async function reportNoShows(): Promise<void> {
    const reported = await inTransaction(deps.pool, async (client) => {
      let events = 0;
      for (const meeting of await claimNoShowsDue(client, MEETINGS_PER_RUN)) {
        for (const person of meeting.absent) {
          await insertOutboxEvent(client, meetingNoShowEvent(meeting, person));
          events++;
        }
        await markNoShowsReported(client, meeting.id);
      }
      return events;
    });
    if (reported > 0) {
      deps.outboxWritten();
      deps.logger.info({ events: reported }, "reported invited people who did not join (meeting.no_show)");
    }
  };
}
