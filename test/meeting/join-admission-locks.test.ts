import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createLogger } from "@svc/platform";
import { openRoomAndAdmit, type NewAdmission } from "../../services/meeting/src/db/join-state.ts";
import { useServiceDatabase } from "../support/service-database.ts";
import { within } from "../support/wait.ts";

// How a join grant's admission locks the meeting row, against the real Postgres: grants into an
// open room never wait for each other, and an end still orders itself with them.
const logger = createLogger("join-admission-locks-test", "silent");
const database = useServiceDatabase("meeting", logger, { max: 6 });

async function liveMeeting(roomOpen: boolean): Promise<string> {
  const id = randomBytes(16).toString("base64url");
  await database.pool.query(
    `INSERT INTO meetings (id, org_id, created_by_user_id, title, status, room_opened_at) VALUES ($1, 'org', 'user', 'Locks', 'live', ${roomOpen ? "now()" : "NULL"})`,
    [id],
  );
  return id;
}

const admission = (meetingId: string): NewAdmission => ({
  participantId: randomUUID(),
  meetingId,
  role: "guest",
  email: null,
  linkId: null,
  displayName: "Guest",
  visitorHash: null,
  sessionHash: randomBytes(32),
  admittedFromLobby: false,
});

describe("join grant admissions", () => {
  it("the first grant opens the room; grants into an open room do not wait for another grant's open transaction", async () => {
    const meetingId = await liveMeeting(false);
    expect(await openRoomAndAdmit(database.pool, admission(meetingId))).toBe(true);
    const opened = await database.pool.query<{ open: boolean }>("SELECT room_opened_at IS NOT NULL AS open FROM meetings WHERE id = $1", [meetingId]);
    expect(opened.rows[0]!.open).toBe(true);

    const slow = await database.pool.connect();
    try {
      await slow.query("BEGIN");
      expect(await openRoomAndAdmit(slow, admission(meetingId))).toBe(true); // holds its lock until COMMIT
      expect(await within(openRoomAndAdmit(database.pool, admission(meetingId)), 2_000)).toBe(true);
      await slow.query("COMMIT");
    } finally {
      slow.release();
    }
    const admitted = await database.pool.query<{ count: number }>("SELECT count(*)::int AS count FROM room_admissions WHERE meeting_id = $1", [meetingId]);
    expect(admitted.rows[0]!.count).toBe(3);
  });

  it("a grant waits for an end in progress, then admits nobody", async () => {
    const meetingId = await liveMeeting(true);
    const ending = await database.pool.connect();
    try {
      await ending.query("BEGIN");
      await ending.query("UPDATE meetings SET status = 'ended', ended_at = now() WHERE id = $1", [meetingId]);
      const grant = openRoomAndAdmit(database.pool, admission(meetingId));
      expect(await within(grant, 500)).toBe("pending");
      await ending.query("COMMIT");
      expect(await grant).toBe(false);
    } finally {
      ending.release();
    }
    const admitted = await database.pool.query<{ count: number }>("SELECT count(*)::int AS count FROM room_admissions WHERE meeting_id = $1", [meetingId]);
    expect(admitted.rows[0]!.count).toBe(0);
  });

  it("an end waits for a grant in progress, and then sees the room it opened", async () => {
    const meetingId = await liveMeeting(true);
    const granting = await database.pool.connect();
    try {
      await granting.query("BEGIN");
      expect(await openRoomAndAdmit(granting, admission(meetingId))).toBe(true);
      const end = database.pool.query<{ room_opened_at: Date | null }>(
        "UPDATE meetings SET status = 'ended', ended_at = now() WHERE id = $1 RETURNING room_opened_at",
        [meetingId],
      );
      expect(await within(end, 500)).toBe("pending");
      await granting.query("COMMIT");
      expect((await end).rows[0]!.room_opened_at).not.toBeNull();
    } finally {
      granting.release();
    }
  });
});
