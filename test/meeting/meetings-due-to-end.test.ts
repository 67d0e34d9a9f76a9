import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { inTransaction } from "@svc/platform/db";
import { claimMeetingsDueToEnd } from "../../services/meeting/src/db/meetings.ts";
import { useServiceDatabase } from "../support/service-database.ts";

// Which meetings the lifecycle ends, against the real Postgres, with the times written into the
// rows (seconds ago) rather than waited for: an emptied meeting ends after the grace period unless
// a join grant issued within the last grace period has not been used yet.
const GRACE_SECONDS = 60;
const logger = createLogger("meetings-due-to-end-test", "silent");
const database = useServiceDatabase("meeting", logger);

/** A live meeting whose room emptied `emptySecondsAgo` seconds ago. */
async function emptiedMeeting(emptySecondsAgo: number): Promise<string> {
  const id = randomBytes(16).toString("base64url");
  await database.pool.query(
    `INSERT INTO meetings (id, org_id, created_by_user_id, title, status, room_opened_at, empty_since)
     VALUES ($1, 'org', 'user', 'Grace', 'live', now() - interval '1 hour', now() - make_interval(secs => $2))`,
    [id, emptySecondsAgo],
  );
  return id;
}

/** A join grant's admission issued `secondsAgo` seconds ago; `entered`: its holder's visit is recorded. */
async function grantIssued(meetingId: string, secondsAgo: number, options: { entered?: boolean; removed?: boolean } = {}): Promise<void> {
  const participantId = randomUUID();
  await database.pool.query(
    `INSERT INTO room_admissions (participant_id, meeting_id, role, display_name, session_hash, created_at, removed_at)
     VALUES ($1, $2, 'guest', 'Rejoiner', $3, now() - make_interval(secs => $4), ${options.removed ? "now()" : "NULL"})`,
    [participantId, meetingId, randomBytes(32), secondsAgo],
  );
  if (options.entered) {
    await database.pool.query(
      `INSERT INTO room_participants (meeting_id, session_id, participant_id, display_name, joined_at, left_at)
       VALUES ($1, $2, $3, 'Rejoiner', now() - make_interval(secs => $4), now() - make_interval(secs => $4))`,
      [meetingId, `PA_${randomUUID()}`, participantId, secondsAgo],
    );
  }
}

/** The meetings among `ids` the lifecycle would end now (the claim's locks end with its transaction). */
const dueToEnd = (ids: string[]) =>
  inTransaction(database.pool, async (client) =>
    (await claimMeetingsDueToEnd(client, GRACE_SECONDS, 1_000))
      .map((meeting) => meeting.id)
      .filter((id) => ids.includes(id))
      .sort(),
  );

describe("meetings due to end after the empty grace period", () => {
  it("an emptied meeting ends once the grace has passed, not before", async () => {
    const over = await emptiedMeeting(GRACE_SECONDS + 5);
    const waiting = await emptiedMeeting(GRACE_SECONDS - 5);
    expect(await dueToEnd([over, waiting])).toEqual([over]);
  });

  it("a grant issued during the grace, not yet used, holds the meeting open a grace period from the grant", async () => {
    const rejoining = await emptiedMeeting(GRACE_SECONDS + 5);
    await grantIssued(rejoining, 10); // issued 50 s into the grace: its holder is on the way in
    const grantLapsed = await emptiedMeeting(GRACE_SECONDS * 3);
    await grantIssued(grantLapsed, GRACE_SECONDS + 5); // issued during the grace, never used, its own grace over
    expect(await dueToEnd([rejoining, grantLapsed])).toEqual([grantLapsed]);
  });

  it("a grant already used (its holder entered and left), or withdrawn by a removal, holds nothing", async () => {
    const usedGrant = await emptiedMeeting(GRACE_SECONDS + 5);
    await grantIssued(usedGrant, 10, { entered: true });
    const removed = await emptiedMeeting(GRACE_SECONDS + 5);
    await grantIssued(removed, 10, { removed: true });
    expect(await dueToEnd([usedGrant, removed])).toEqual([usedGrant, removed].sort());
  });
});
